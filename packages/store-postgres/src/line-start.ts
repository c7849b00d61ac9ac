// lineStart on PostgreSQL: the turn with its line's newest compaction and first kept turn, the
// viewing session's row, the newest page of the turn's own session since that first kept turn, and
// the events that page cites, in ONE statement: where buildContext paid a round trip for each
// (turnWithCompaction, getSession, chainPage, eventIdsByTurn), it pays one. Inside a transaction the
// session row must be locked as getSession locks it there, so the parts are read one by one.

import type { SessionRecord, StoredTurn, TurnStore } from '@agent-ledger/store';
import { named, type PgExecutor } from './pg-executor.ts';
import {
  chainPage,
  decodeSession,
  decodeTurn,
  eventIdsByTurn,
  getSession,
  groupLinks,
  pageHasChildren,
  SESSION_COLUMNS,
  TURN_COLUMNS,
  TURN_FIELDS,
  type TurnRow,
  turnWithCompaction,
} from './turn-queries.ts';

type LineStartQuery = Parameters<TurnStore['lineStart']>[0];
type LineStart = NonNullable<Awaited<ReturnType<TurnStore['lineStart']>>>;

// $1 the turn, $2 the viewing session (null: the turn's own), $3 how many newest turns.
const LINE_START = named(
  'line_start',
  'WITH target AS (SELECT t.session_id, t.depth, t.latest_compaction_id FROM agent_turns t WHERE t.id = $1), ' +
    'compaction AS (SELECT c.id, c.depth, c.first_kept_turn_id FROM agent_turns c WHERE c.id = (SELECT latest_compaction_id FROM target)), ' +
    'kept AS (SELECT k.id, k.depth FROM agent_turns k WHERE k.id = (SELECT first_kept_turn_id FROM compaction)), ' +
    `page AS (SELECT ${TURN_FIELDS}, ${pageHasChildren('lag(t.depth) OVER (ORDER BY t.depth DESC)')} ` +
    'FROM agent_turns t WHERE t.session_id = (SELECT session_id FROM target) ' +
    'AND t.depth BETWEEN coalesce((SELECT depth FROM kept), (SELECT depth + 1 FROM compaction), 0) AND (SELECT depth FROM target) ' +
    'ORDER BY t.depth DESC LIMIT $3) ' +
    `SELECT 'newest' AS part, page.*, NULL::json AS session, NULL::json AS links FROM page ` +
    `UNION ALL SELECT 'line', ${TURN_COLUMNS}, ` +
    // The session and the links ride on the turn's own row only.
    `CASE WHEN t.id = $1 THEN (SELECT row_to_json(s) FROM (SELECT ${SESSION_COLUMNS} FROM agent_sessions WHERE id = coalesce($2, t.session_id)) s) END, ` +
    "CASE WHEN t.id = $1 THEN (SELECT json_agg(json_build_object('turnId', e.turn_id, 'eventId', e.event_id) ORDER BY e.turn_id, e.event_id COLLATE \"C\") " +
    'FROM turn_events e WHERE e.turn_id = ANY(ARRAY(SELECT id FROM page))) END ' +
    'FROM agent_turns t WHERE t.id IN ($1, (SELECT id FROM compaction), (SELECT id FROM kept))',
);

type LineStartRow = TurnRow & {
  part: 'newest' | 'line';
  session: SessionRecord | null;
  links: Array<{ turnId: string; eventId: string }> | null;
};

/** Where raw turns resume by the turn's own newest compaction (as the statement's `page` bounds it). */
function newestFromDepthOf(line: { compaction?: StoredTurn; firstKept?: StoredTurn }): number {
  return line.firstKept?.depth ?? (line.compaction ? line.compaction.depth + 1 : 0);
}

/** The parts one by one (inside a transaction, where the session row is read locked). */
async function lineStartApart(db: PgExecutor, query: LineStartQuery): Promise<LineStart | undefined> {
  const read = await turnWithCompaction(db, query.turnId);
  if (!read) return undefined;
  const session = await getSession(db, query.sessionId ?? read.turn.sessionId);
  const newestFromDepth = newestFromDepthOf(read);
  const newest = await chainPage(db, {
    sessionId: read.turn.sessionId,
    fromDepth: newestFromDepth,
    toDepth: read.turn.depth,
    newestFirst: true,
    limit: query.newestLimit,
  });
  const newestEventIds = await eventIdsByTurn(
    db,
    newest.map((row) => row.id),
  );
  return { ...read, ...(session ? { session } : {}), newestFromDepth, newest, newestEventIds };
}

async function lineStart(db: PgExecutor, query: LineStartQuery): Promise<LineStart | undefined> {
  if (db.inTransaction) return lineStartApart(db, query);
  const rows = await db.query<LineStartRow>(LINE_START, [query.turnId, query.sessionId ?? null, query.newestLimit]);
  const own = rows.find((row) => row.part === 'line' && row.id === query.turnId);
  if (!own) return undefined;
  const turns = (part: LineStartRow['part']) =>
    rows.filter((row) => row.part === part).map(({ part: _, session: __, links: ___, ...turn }) => decodeTurn(turn));
  const line = turns('line');
  const turn = line.find((row) => row.id === query.turnId) as StoredTurn;
  const compaction = turn.latestCompactionId ? line.find((row) => row.id === turn.latestCompactionId) : undefined;
  const firstKept = compaction?.firstKeptTurnId ? line.find((row) => row.id === compaction.firstKeptTurnId) : undefined;
  const newest = turns('newest').sort((left, right) => right.depth - left.depth);
  return {
    turn,
    ...(compaction ? { compaction } : {}),
    ...(firstKept ? { firstKept } : {}),
    ...(own.session ? { session: decodeSession(own.session) } : {}),
    newestFromDepth: newestFromDepthOf({ compaction, firstKept }),
    newest,
    newestEventIds: groupLinks(own.links ?? []),
  };
}

export function lineStartQueries(db: PgExecutor): Pick<TurnStore, 'lineStart'> {
  return { lineStart: (query) => lineStart(db, query) };
}
