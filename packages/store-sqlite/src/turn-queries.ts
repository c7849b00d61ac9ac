// Turns on SQLite: prepared statements over agent_turns and turn_events, and the append that moves a
// session's head (agent_sessions). Turns are append-only (triggers refuse UPDATE and DELETE), so
// `hasChildren` is read from the rows that exist rather than stored: a turn has a child when its own
// session goes on past it, or a fork made at it has turns of its own.

import {
  type AppendOutcome,
  type AppendToSession,
  type ChainPageQuery,
  type ChainRange,
  type CoveringCompactionQuery,
  mergedChainRanges,
  placeTurnWithCompaction,
  type StoredTurn,
  type TurnRecord,
  type TurnStore,
  type TurnWithCompaction,
} from '@agent-ledger/store';
import type Database from 'better-sqlite3';
import { chunks, jsonOrNull, parseJson, placeholders, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

/** The stored columns of a turn as TurnRecord names, for a table aliased `t`. */
export const TURN_FIELDS =
  't.id, t.session_id AS sessionId, t.parent_turn_id AS parentTurnId, t.depth, t.role, t.content, t.model, ' +
  't.token_count AS tokenCount, t.timestamp, t.tool_call_count AS toolCallCount, t.metadata, t.turn_type AS turnType, ' +
  't.summary, t.summarized_through_turn_id AS summarizedThroughTurnId, t.first_kept_turn_id AS firstKeptTurnId, ' +
  't.tokens_before AS tokensBefore, t.tokens_after AS tokensAfter, t.trigger, t.strategy, t.summarizer, ' +
  't.usage_input_tokens AS usageInputTokens, t.usage_output_tokens AS usageOutputTokens, ' +
  't.latest_compaction_id AS latestCompactionId, t.cumulative_tokens AS cumulativeTokens, t.search_text AS searchText, ' +
  't.covers_from_depth AS coversFromDepth, t.previous_compaction_id AS previousCompactionId, ' +
  't.summarized_through_depth AS summarizedThroughDepth, t.hash';

/** Whether anything continues from turn `t`: the session goes on past it, or a fork made at it has a turn. */
export const HAS_CHILDREN =
  '(EXISTS (SELECT 1 FROM agent_turns c WHERE c.session_id = t.session_id AND c.depth = t.depth + 1) ' +
  ' OR EXISTS (SELECT 1 FROM agent_sessions f WHERE f.forked_from_turn_id = t.id AND f.head_turn_id IS NOT t.id)) AS hasChildren';

/** A turn as read: its columns and whether anything continues from it. */
const TURN_COLUMNS = `${TURN_FIELDS}, ${HAS_CHILDREN}`;

const INSERT_TURN =
  'INSERT INTO agent_turns (id, session_id, parent_turn_id, depth, role, content, model, token_count, timestamp, ' +
  'tool_call_count, metadata, turn_type, summary, summarized_through_turn_id, first_kept_turn_id, tokens_before, ' +
  'tokens_after, trigger, strategy, summarizer, usage_input_tokens, usage_output_tokens, latest_compaction_id, ' +
  'cumulative_tokens, search_text, covers_from_depth, previous_compaction_id, summarized_through_depth, hash) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

type RawRow = Record<string, unknown>;

function decodeTurn(row: RawRow): StoredTurn {
  const turn = row as unknown as StoredTurn;
  turn.content = parseJson(row.content);
  turn.metadata = parseJson(row.metadata);
  turn.hasChildren = row.hasChildren === 1 || row.hasChildren === true;
  return turn;
}

function turnParameters(turn: TurnRecord): unknown[] {
  return [
    turn.id,
    turn.sessionId,
    turn.parentTurnId,
    turn.depth,
    turn.role,
    jsonOrNull(turn.content),
    turn.model,
    turn.tokenCount,
    turn.timestamp,
    turn.toolCallCount,
    jsonOrNull(turn.metadata),
    turn.turnType,
    turn.summary,
    turn.summarizedThroughTurnId,
    turn.firstKeptTurnId,
    turn.tokensBefore,
    turn.tokensAfter,
    turn.trigger,
    turn.strategy,
    turn.summarizer,
    turn.usageInputTokens,
    turn.usageOutputTokens,
    turn.latestCompactionId,
    turn.cumulativeTokens,
    turn.searchText,
    turn.coversFromDepth,
    turn.previousCompactionId,
    turn.summarizedThroughDepth,
    turn.hash,
  ];
}

function getTurn(connection: SqliteConnection, turnId: string): StoredTurn | undefined {
  const row = connection.statement(`SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.id = ?`).get(turnId) as RawRow | undefined;
  return row ? decodeTurn(row) : undefined;
}

// The turn, the compaction its line last had, and that compaction's first kept turn: one statement.
const LATEST = '(SELECT l.latest_compaction_id FROM agent_turns l WHERE l.id = @id)';
const TURN_WITH_COMPACTION = `SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.id IN (@id, ${LATEST}, (SELECT c.first_kept_turn_id FROM agent_turns c WHERE c.id = ${LATEST}))`;

export function turnWithCompaction(connection: SqliteConnection, turnId: string): TurnWithCompaction | undefined {
  const rows = connection.statement(TURN_WITH_COMPACTION).all({ id: turnId }) as RawRow[];
  return placeTurnWithCompaction(turnId, rows.map(decodeTurn));
}

function getTurns(connection: SqliteConnection, turnIds: readonly string[]): Map<string, StoredTurn> {
  const found = new Map<string, StoredTurn>();
  for (const chunk of chunks([...new Set(turnIds)])) {
    const rows = connection.sqlite.prepare(
      `SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.id IN (${placeholders(chunk.length)})`,
    );
    for (const row of rows.all(...chunk) as RawRow[]) found.set(row.id as string, decodeTurn(row));
  }
  return found;
}

export function chainPage(
  connection: SqliteConnection,
  { sessionId, fromDepth, toDepth, newestFirst, limit }: ChainPageQuery,
): StoredTurn[] {
  return (
    connection
      .statement(
        `SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.session_id = ? AND t.depth BETWEEN ? AND ? ` +
          `ORDER BY t.depth ${newestFirst ? 'DESC' : 'ASC'} LIMIT ?`,
      )
      .all(sessionId, fromDepth, toDepth, limit ?? -1) as RawRow[]
  ).map(decodeTurn);
}

/** Every range's turns oldest first, each turn once (ranges merged first), in one synchronous call. */
function chainRanges(connection: SqliteConnection, ranges: readonly ChainRange[]): StoredTurn[] {
  return mergedChainRanges(ranges).flatMap((range) => chainPage(connection, range));
}

const INSERT_LINK = 'INSERT OR IGNORE INTO turn_events (turn_id, event_id) VALUES (?, ?)';
const MOVE_HEAD = 'UPDATE agent_sessions SET head_turn_id = ? WHERE id = ? AND head_turn_id IS ?';

/** The append's statements, prepared once per connection and held (no cache lookup per append). */
interface AppendStatements {
  insertTurn: Database.Statement;
  insertLink: Database.Statement;
  moveHead: Database.Statement;
}

/** Thrown inside the append's transaction to roll it back: the head was not the expected one. */
class HeadMoved extends Error {}

/** The body of an append; run only inside `appendTransaction`'s IMMEDIATE transaction. */
function appendTurns(statements: AppendStatements, append: AppendToSession): AppendOutcome {
  const last = append.turns.at(-1);
  if (!last) return { written: true };
  // The write lock is held from BEGIN IMMEDIATE. The rows go in first (the head's foreign key needs
  // its turn), then the compare-and-set; a head that was not the expected one rolls it all back. No
  // read of the head first: a lost race is rare, and the update says whether the head was expected.
  for (const turn of append.turns) statements.insertTurn.run(turnParameters(turn));
  for (const link of append.eventLinks ?? []) statements.insertLink.run(link.turnId, link.eventId);
  if (statements.moveHead.run(last.id, append.sessionId, append.expectedHeadTurnId).changes !== 1) throw new HeadMoved();
  return { written: true };
}

/** The append as a better-sqlite3 transaction (made once per connection), a moved head reported as a value. */
function appendTransaction(connection: SqliteConnection): (append: AppendToSession) => AppendOutcome {
  // Prepared on the first append, not at open: a read-only store never prepares a write.
  let statements: AppendStatements | undefined;
  const transaction = connection.sqlite.transaction((append: AppendToSession) => {
    statements ??= {
      insertTurn: connection.sqlite.prepare(INSERT_TURN),
      insertLink: connection.sqlite.prepare(INSERT_LINK),
      moveHead: connection.sqlite.prepare(MOVE_HEAD),
    };
    return appendTurns(statements, append);
  });
  return (append) => {
    try {
      return transaction.immediate(append);
    } catch (error) {
      // A writer that lost the race can fail on the depth the winner took before it reaches the
      // compare-and-set: whatever stopped it, a head that is not the expected one means it moved.
      const current = connection
        .statement('SELECT head_turn_id AS headTurnId FROM agent_sessions WHERE id = ?')
        .get(append.sessionId) as { headTurnId: string | null } | undefined;
      if (error instanceof HeadMoved || !current || current.headTurnId !== append.expectedHeadTurnId)
        return { written: false, actualHeadTurnId: current?.headTurnId ?? null };
      throw error;
    }
  };
}

function compactionsFolding(connection: SqliteConnection, compactionId: string): StoredTurn[] {
  return (
    connection
      .statement(`SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.previous_compaction_id = ? ORDER BY t.depth`)
      .all(compactionId) as RawRow[]
  ).map(decodeTurn);
}

function compactionCovering(
  connection: SqliteConnection,
  { sessionId, depth, maxDepth, aboveDepth }: CoveringCompactionQuery,
): StoredTurn | undefined {
  const row = connection
    .statement(
      `SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.session_id = ? AND t.turn_type = 'compaction' ` +
        'AND t.summarized_through_depth >= ? AND t.covers_from_depth <= ? AND t.depth <= ? AND t.depth > ? ' +
        'ORDER BY t.summarized_through_depth ASC LIMIT 1',
    )
    .get(sessionId, depth, depth, maxDepth, aboveDepth) as RawRow | undefined;
  return row ? decodeTurn(row) : undefined;
}

// The ids travel as one JSON array: one cached statement whatever their number (an IN list of
// placeholders was a fresh prepare per call).
const EVENT_IDS_BY_TURN =
  'SELECT turn_id AS turnId, event_id AS eventId FROM turn_events WHERE turn_id IN (SELECT value FROM json_each(?)) ' +
  'ORDER BY turn_id, event_id';

export function eventIdsByTurn(connection: SqliteConnection, turnIds: readonly string[]): Map<string, string[]> {
  const links = new Map<string, string[]>();
  if (turnIds.length === 0) return links;
  const rows = connection.statement(EVENT_IDS_BY_TURN).all(JSON.stringify(turnIds)) as Array<{ turnId: string; eventId: string }>;
  for (const row of rows) {
    const list = links.get(row.turnId);
    if (list) list.push(row.eventId);
    else links.set(row.turnId, [row.eventId]);
  }
  return links;
}

function turnsCitingEvent(connection: SqliteConnection, eventId: string): string[] {
  return (
    connection
      .statement(
        'SELECT l.turn_id AS turnId FROM turn_events l JOIN agent_turns t ON t.id = l.turn_id WHERE l.event_id = ? ORDER BY t.timestamp, t.id',
      )
      .all(eventId) as Array<{ turnId: string }>
  ).map((row) => row.turnId);
}

function missingEventIds(connection: SqliteConnection, eventIds: readonly string[]): string[] {
  const found = new Set<string>();
  for (const chunk of chunks([...new Set(eventIds)])) {
    const rows = connection.sqlite
      .prepare(`SELECT id FROM events WHERE id IN (${placeholders(chunk.length)})`)
      .all(...chunk) as Array<{ id: string }>;
    for (const row of rows) found.add(row.id);
  }
  return eventIds.filter((id) => !found.has(id));
}

/** Every turn operation but `lineStart` (line-start.ts, built on these). */
export function turnQueries(connection: SqliteConnection): Synchronous<Omit<TurnStore, 'lineStart'>> {
  const appendToSession = appendTransaction(connection);
  return {
    getTurn: (turnId) => getTurn(connection, turnId),
    getTurns: (turnIds) => getTurns(connection, turnIds),
    turnWithCompaction: (turnId) => turnWithCompaction(connection, turnId),
    chainPage: (query) => chainPage(connection, query),
    chainRanges: (ranges) => chainRanges(connection, ranges),
    appendToSession,
    compactionsFolding: (compactionId) => compactionsFolding(connection, compactionId),
    compactionCovering: (query) => compactionCovering(connection, query),
    eventIdsByTurn: (turnIds) => eventIdsByTurn(connection, turnIds),
    turnsCitingEvent: (eventId) => turnsCitingEvent(connection, eventId),
    missingEventIds: (eventIds) => missingEventIds(connection, eventIds),
  };
}
