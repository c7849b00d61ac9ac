// The append on PostgreSQL: the compare-and-set of the session head, the turns and their event links
// in ONE statement (one round trip, where BEGIN, UPDATE, INSERT and COMMIT were four). The UPDATE
// is a data-modifying CTE the inserts read from, so it runs first and takes the session's row lock:
// a concurrent append planned on the same head waits on that lock, re-reads the row, finds the head
// moved and changes nothing, and so writes nothing (its inserts are gated on a row having moved). A
// single statement is atomic by itself; the head's foreign key is deferred, so it is checked once the
// new turns are in. Only a lost race costs a second round trip, to report the head that won.

import type { AppendOutcome, AppendToSession, TurnRecord } from '@agent-ledger/store';
import { named, type PgExecutor } from './pg-executor.ts';

export function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** The turn columns in INSERT order, each with the array type its values travel in. */
const TURN_INSERT: ReadonlyArray<[column: string, arrayType: string, value: (turn: TurnRecord) => unknown]> = [
  ['id', 'text[]', (turn) => turn.id],
  ['session_id', 'text[]', (turn) => turn.sessionId],
  ['parent_turn_id', 'text[]', (turn) => turn.parentTurnId],
  ['depth', 'int[]', (turn) => turn.depth],
  ['role', 'text[]', (turn) => turn.role],
  ['content', 'json[]', (turn) => jsonOrNull(turn.content)],
  ['model', 'text[]', (turn) => turn.model],
  ['token_count', 'int[]', (turn) => turn.tokenCount],
  ['timestamp', 'bigint[]', (turn) => turn.timestamp],
  ['tool_call_count', 'int[]', (turn) => turn.toolCallCount],
  ['metadata', 'json[]', (turn) => jsonOrNull(turn.metadata)],
  ['turn_type', 'text[]', (turn) => turn.turnType],
  ['summary', 'text[]', (turn) => turn.summary],
  ['summarized_through_turn_id', 'text[]', (turn) => turn.summarizedThroughTurnId],
  ['first_kept_turn_id', 'text[]', (turn) => turn.firstKeptTurnId],
  ['tokens_before', 'int[]', (turn) => turn.tokensBefore],
  ['tokens_after', 'int[]', (turn) => turn.tokensAfter],
  ['trigger', 'text[]', (turn) => turn.trigger],
  ['strategy', 'text[]', (turn) => turn.strategy],
  ['summarizer', 'text[]', (turn) => turn.summarizer],
  ['usage_input_tokens', 'int[]', (turn) => turn.usageInputTokens],
  ['usage_output_tokens', 'int[]', (turn) => turn.usageOutputTokens],
  ['latest_compaction_id', 'text[]', (turn) => turn.latestCompactionId],
  ['cumulative_tokens', 'bigint[]', (turn) => turn.cumulativeTokens],
  ['search_text', 'text[]', (turn) => turn.searchText],
  ['covers_from_depth', 'int[]', (turn) => turn.coversFromDepth],
  ['previous_compaction_id', 'text[]', (turn) => turn.previousCompactionId],
  ['summarized_through_depth', 'int[]', (turn) => turn.summarizedThroughDepth],
  ['hash', 'text[]', (turn) => turn.hash],
];

/** $1 the new head, $2 the session, $3 the expected head; then the link arrays; then one array per turn column. */
const FIRST_TURN_PARAMETER = 6;

const APPEND =
  'WITH moved AS (UPDATE agent_sessions SET head_turn_id = $1 WHERE id = $2 AND head_turn_id IS NOT DISTINCT FROM $3 RETURNING id), ' +
  `turns AS (INSERT INTO agent_turns (${TURN_INSERT.map(([column]) => column).join(', ')}) ` +
  `SELECT * FROM unnest(${TURN_INSERT.map(([, arrayType], index) => `$${index + FIRST_TURN_PARAMETER}::${arrayType}`).join(', ')}) ` +
  'WHERE EXISTS (SELECT 1 FROM moved)), ' +
  // A link written twice is kept once (as SQLite's INSERT OR IGNORE); a missing event fails the write.
  'links AS (INSERT INTO turn_events (turn_id, event_id) SELECT * FROM unnest($4::text[], $5::text[]) ' +
  'WHERE EXISTS (SELECT 1 FROM moved) ON CONFLICT DO NOTHING) ' +
  'SELECT count(*)::int AS moved FROM moved';

const APPEND_STATEMENT = named('append_to_session', APPEND);

const HEAD_NOW = named('session_head', 'SELECT head_turn_id AS "headTurnId" FROM agent_sessions WHERE id = $1');

/** The parameters of the append statement, every turn of the batch in one array per column. */
function appendParameters(append: AppendToSession, last: TurnRecord): unknown[] {
  const links = append.eventLinks ?? [];
  return [
    last.id,
    append.sessionId,
    append.expectedHeadTurnId,
    links.map((link) => link.turnId),
    links.map((link) => link.eventId),
    ...TURN_INSERT.map(([, , value]) => append.turns.map(value)),
  ];
}

export async function appendToSession(db: PgExecutor, append: AppendToSession): Promise<AppendOutcome> {
  const last = append.turns.at(-1);
  if (!last) return { written: true };
  const parameters = appendParameters(append, last);
  // Inside a caller's transaction a failed append must not abort the whole transaction: a savepoint.
  const run = (executor: PgExecutor) => executor.query<{ moved: number }>(APPEND_STATEMENT, parameters);
  const [result] = db.inTransaction ? await db.atomically(run) : await run(db);
  if ((result?.moved ?? 0) > 0) return { written: true };
  // The statement's snapshot may predate the write that won the race: read the head afresh.
  const [current] = await db.query<{ headTurnId: string | null }>(HEAD_NOW, [append.sessionId]);
  return { written: false, actualHeadTurnId: current?.headTurnId ?? null };
}
