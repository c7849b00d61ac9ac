// Sessions and turns on PostgreSQL. The append (a compare-and-set of the head and the turns in one
// statement) is turn-append.ts. Turns are append-only (triggers), so `hasChildren` is derived on
// read, as on SQLite: the session goes on past the turn, or a fork made at it has turns of its own.
// The statements every context read runs are named, so each connection prepares them once.

import {
  type ChainPageQuery,
  type ChainRange,
  type CoveringCompactionQuery,
  mergedChainRanges,
  placeTurnWithCompaction,
  type SessionRecord,
  type SessionSettingsUpdate,
  type SessionStore,
  type StoredTurn,
  type TurnEventLink,
  type TurnStore,
  type TurnWithCompaction,
} from '@agent-ledger/store';
import { named, type PgExecutor } from './pg-executor.ts';
import { appendToSession, jsonOrNull } from './turn-append.ts';

// BIGINT columns come back from node-postgres as strings: read as float8, exact below 2^53.
export const SESSION_COLUMNS =
  'id, label, head_turn_id AS "headTurnId", parent_session_id AS "parentSessionId", forked_from_turn_id AS "forkedFromTurnId", ' +
  'rebuild_from_raw AS "rebuildFromRaw", ignore_compactions_through_depth AS "ignoreCompactionsThroughDepth", ' +
  'context_window AS "contextWindow", reserve_tokens AS "reserveTokens", keep_recent_tokens AS "keepRecentTokens", ' +
  'compaction_strategy AS "compactionStrategy", calibration, created_at::float8 AS "createdAt"';

/** The stored columns of a turn as TurnRecord names, for a table aliased `t`. */
export const TURN_FIELDS =
  't.id, t.session_id AS "sessionId", t.parent_turn_id AS "parentTurnId", t.depth, t.role, t.content, t.model, ' +
  't.token_count AS "tokenCount", t.timestamp::float8 AS timestamp, t.tool_call_count AS "toolCallCount", t.metadata, ' +
  't.turn_type AS "turnType", t.summary, t.summarized_through_turn_id AS "summarizedThroughTurnId", ' +
  't.first_kept_turn_id AS "firstKeptTurnId", t.tokens_before AS "tokensBefore", t.tokens_after AS "tokensAfter", ' +
  't.trigger, t.strategy, t.summarizer, t.usage_input_tokens AS "usageInputTokens", t.usage_output_tokens AS "usageOutputTokens", ' +
  't.latest_compaction_id AS "latestCompactionId", t.cumulative_tokens::float8 AS "cumulativeTokens", ' +
  't.search_text AS "searchText", t.covers_from_depth AS "coversFromDepth", t.previous_compaction_id AS "previousCompactionId", ' +
  't.summarized_through_depth AS "summarizedThroughDepth", t.hash';

/** A turn as read: its columns and whether anything continues from it. */
export const TURN_COLUMNS =
  `${TURN_FIELDS}, ` +
  // LIMIT 1 probes, not EXISTS: see pageHasChildren (a read of 200 ids is many rows to the planner).
  '((SELECT true FROM agent_turns c WHERE c.session_id = t.session_id AND c.depth = t.depth + 1 LIMIT 1) IS NOT NULL ' +
  ' OR (SELECT true FROM agent_sessions f WHERE f.forked_from_turn_id = t.id AND f.head_turn_id IS DISTINCT FROM t.id LIMIT 1) IS NOT NULL) ' +
  'AS "hasChildren"';

const INSERT_SESSION =
  'INSERT INTO agent_sessions (id, label, head_turn_id, parent_session_id, forked_from_turn_id, rebuild_from_raw, ' +
  'ignore_compactions_through_depth, context_window, reserve_tokens, keep_recent_tokens, compaction_strategy, ' +
  'calibration, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13)';

export type TurnRow = Omit<StoredTurn, 'content' | 'metadata'> & { content: unknown; metadata: unknown };

/** jsonb arrives parsed; a JSON null stored as SQL NULL reads back as null. */
export function decodeTurn(row: TurnRow): StoredTurn {
  row.content ??= null;
  row.metadata ??= null;
  return row;
}

export function decodeSession(row: SessionRecord): SessionRecord {
  row.calibration ??= null;
  return row;
}

export function groupLinks(rows: readonly TurnEventLink[]): Map<string, string[]> {
  const links = new Map<string, string[]>();
  for (const row of rows) {
    const list = links.get(row.turnId);
    if (list) list.push(row.eventId);
    else links.set(row.turnId, [row.eventId]);
  }
  return links;
}

// Inside store.transaction a session read is locked until the transaction ends (as SQLite's one
// writer holds it), so a read-modify-write of a session (settings, a compaction planned on its
// head) cannot interleave with another. NO KEY: turns referencing the session still insert.
const GET_SESSION = named('get_session', `SELECT ${SESSION_COLUMNS} FROM agent_sessions WHERE id = $1`);
const GET_SESSION_LOCKED = named('get_session_locked', `${GET_SESSION.text} FOR NO KEY UPDATE`);

export async function getSession(db: PgExecutor, sessionId: string): Promise<SessionRecord | undefined> {
  const [row] = await db.query<SessionRecord>(db.inTransaction ? GET_SESSION_LOCKED : GET_SESSION, [sessionId]);
  return row ? decodeSession(row) : undefined;
}

async function listSessions(db: PgExecutor, { limit, offset }: { limit: number; offset: number }): Promise<SessionRecord[]> {
  const rows = await db.query<SessionRecord>(
    `SELECT ${SESSION_COLUMNS} FROM agent_sessions ORDER BY created_at DESC, id COLLATE "C" ASC LIMIT $1 OFFSET $2`,
    [limit, offset],
  );
  return rows.map(decodeSession);
}

async function childSessions(db: PgExecutor, sessionId: string): Promise<SessionRecord[]> {
  const rows = await db.query<SessionRecord>(
    `SELECT ${SESSION_COLUMNS} FROM agent_sessions WHERE parent_session_id = $1 ORDER BY created_at ASC, id COLLATE "C" ASC`,
    [sessionId],
  );
  return rows.map(decodeSession);
}

async function insertSession(db: PgExecutor, session: SessionRecord): Promise<void> {
  await db.execute(INSERT_SESSION, [
    session.id,
    session.label,
    session.headTurnId,
    session.parentSessionId,
    session.forkedFromTurnId,
    session.rebuildFromRaw,
    session.ignoreCompactionsThroughDepth,
    session.contextWindow,
    session.reserveTokens,
    session.keepRecentTokens,
    session.compactionStrategy,
    jsonOrNull(session.calibration),
    session.createdAt,
  ]);
}

async function updateSessionSettings(
  db: PgExecutor,
  sessionId: string,
  update: SessionSettingsUpdate,
): Promise<SessionRecord | undefined> {
  const [row] = await db.query<SessionRecord>(
    'UPDATE agent_sessions SET context_window = $1, reserve_tokens = $2, keep_recent_tokens = $3, calibration = $4::jsonb ' +
      `WHERE id = $5 RETURNING ${SESSION_COLUMNS}`,
    [update.contextWindow, update.reserveTokens, update.keepRecentTokens, jsonOrNull(update.calibration), sessionId],
  );
  return row ? decodeSession(row) : undefined;
}

async function turnsWhere(db: PgExecutor, condition: string, parameters: readonly unknown[]): Promise<StoredTurn[]> {
  return (await db.query<TurnRow>(`SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE ${condition}`, parameters)).map(decodeTurn);
}

const GET_TURN = named('get_turn', `SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.id = $1`);

async function getTurn(db: PgExecutor, turnId: string): Promise<StoredTurn | undefined> {
  const [row] = await db.query<TurnRow>(GET_TURN, [turnId]);
  return row ? decodeTurn(row) : undefined;
}

// The turn, the compaction its line last had, and that compaction's first kept turn: one round trip.
const LATEST = '(SELECT l.latest_compaction_id FROM agent_turns l WHERE l.id = $1)';
const WITH_COMPACTION = named(
  'turn_with_compaction',
  `SELECT ${TURN_COLUMNS} FROM agent_turns t ` +
    `WHERE t.id IN ($1, ${LATEST}, (SELECT c.first_kept_turn_id FROM agent_turns c WHERE c.id = ${LATEST}))`,
);

export async function turnWithCompaction(db: PgExecutor, turnId: string): Promise<TurnWithCompaction | undefined> {
  return placeTurnWithCompaction(turnId, (await db.query<TurnRow>(WITH_COMPACTION, [turnId])).map(decodeTurn));
}

async function getTurns(db: PgExecutor, turnIds: readonly string[]): Promise<Map<string, StoredTurn>> {
  const found = new Map<string, StoredTurn>();
  if (turnIds.length === 0) return found;
  for (const turn of await turnsWhere(db, 't.id = ANY($1::text[])', [[...new Set(turnIds)]])) found.set(turn.id, turn);
  return found;
}

/**
 * Whether a page's turn has a child in its own session: the next row of the page says so for every
 * row but the deepest, so the index probe runs once per page rather than once per row (it was half
 * the cost of reading a page). `next` is the window function giving the next deeper row's depth.
 */
export function pageHasChildren(next: string): string {
  // Scalar probes with LIMIT 1, never EXISTS: PostgreSQL may run an EXISTS as a hashed subplan built
  // from every turn in the table when it expects many rows (a chainRanges read at 10k turns did).
  return (
    `(CASE WHEN ${next} = t.depth + 1 THEN true ` +
    'ELSE (SELECT true FROM agent_turns c WHERE c.session_id = t.session_id AND c.depth = t.depth + 1 LIMIT 1) IS NOT NULL END ' +
    'OR (SELECT true FROM agent_sessions f WHERE f.forked_from_turn_id = t.id AND f.head_turn_id IS DISTINCT FROM t.id LIMIT 1) IS NOT NULL) ' +
    'AS "hasChildren"'
  );
}

// The window runs in the page's own order, so it streams along the index scan and stops at LIMIT.
const PAGE_WHERE = 'FROM agent_turns t WHERE t.session_id = $1 AND t.depth BETWEEN $2 AND $3';
const CHAIN_PAGE_OLDEST_FIRST = named(
  'chain_page_oldest_first',
  `SELECT ${TURN_FIELDS}, ${pageHasChildren('lead(t.depth) OVER (ORDER BY t.depth ASC)')} ${PAGE_WHERE} ORDER BY t.depth ASC LIMIT $4`,
);
const CHAIN_PAGE_NEWEST_FIRST = named(
  'chain_page_newest_first',
  `SELECT ${TURN_FIELDS}, ${pageHasChildren('lag(t.depth) OVER (ORDER BY t.depth DESC)')} ${PAGE_WHERE} ORDER BY t.depth DESC LIMIT $4`,
);

export async function chainPage(
  db: PgExecutor,
  { sessionId, fromDepth, toDepth, newestFirst, limit }: ChainPageQuery,
): Promise<StoredTurn[]> {
  // LIMIT NULL is no limit.
  const rows = await db.query<TurnRow>(newestFirst ? CHAIN_PAGE_NEWEST_FIRST : CHAIN_PAGE_OLDEST_FIRST, [
    sessionId,
    fromDepth,
    toDepth,
    limit ?? null,
  ]);
  return rows.map(decodeTurn);
}

/**
 * Every range's turns, each once, by session then depth: one statement whatever the number of
 * ranges (merged first), each range read along the (session, depth) index. The LATERAL subquery
 * with a LIMIT the range sets makes that plan the only one: as a plain join, the generic plan of
 * the prepared statement hashed the ranges and read the whole table (68 ms for 965 rows of a
 * 10k-turn history, against 5 ms).
 */
const CHAIN_RANGES = named(
  'chain_ranges',
  `SELECT ${TURN_FIELDS}, ${pageHasChildren('lead(t.depth) OVER (PARTITION BY t.session_id ORDER BY t.depth)')} ` +
    'FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS r (session_id, from_depth, to_depth) ' +
    'CROSS JOIN LATERAL (SELECT * FROM agent_turns x WHERE x.session_id = r.session_id ' +
    'AND x.depth BETWEEN r.from_depth AND r.to_depth ORDER BY x.depth LIMIT r.to_depth - r.from_depth + 1) t ' +
    'ORDER BY t.session_id, t.depth',
);

async function chainRanges(db: PgExecutor, ranges: readonly ChainRange[]): Promise<StoredTurn[]> {
  const merged = mergedChainRanges(ranges);
  if (merged.length === 0) return [];
  const rows = await db.query<TurnRow>(CHAIN_RANGES, [
    merged.map((range) => range.sessionId),
    merged.map((range) => range.fromDepth),
    merged.map((range) => range.toDepth),
  ]);
  return rows.map(decodeTurn);
}

async function compactionCovering(
  db: PgExecutor,
  { sessionId, depth, maxDepth, aboveDepth }: CoveringCompactionQuery,
): Promise<StoredTurn | undefined> {
  const [turn] = await turnsWhere(
    db,
    "t.session_id = $1 AND t.turn_type = 'compaction' AND t.summarized_through_depth >= $2 AND t.covers_from_depth <= $2 " +
      'AND t.depth <= $3::bigint AND t.depth > $4::bigint ORDER BY t.summarized_through_depth ASC LIMIT 1',
    [sessionId, depth, maxDepth, aboveDepth],
  );
  return turn;
}

const EVENT_IDS_BY_TURN = named(
  'event_ids_by_turn',
  'SELECT turn_id AS "turnId", event_id AS "eventId" FROM turn_events WHERE turn_id = ANY($1::text[]) ' +
    'ORDER BY turn_id, event_id COLLATE "C"',
);

export async function eventIdsByTurn(db: PgExecutor, turnIds: readonly string[]): Promise<Map<string, string[]>> {
  if (turnIds.length === 0) return new Map();
  const rows = await db.query<TurnEventLink>(EVENT_IDS_BY_TURN, [[...new Set(turnIds)]]);
  return groupLinks(rows);
}

async function turnsCitingEvent(db: PgExecutor, eventId: string): Promise<string[]> {
  const rows = await db.query<{ turnId: string }>(
    'SELECT l.turn_id AS "turnId" FROM turn_events l JOIN agent_turns t ON t.id = l.turn_id WHERE l.event_id = $1 ' +
      'ORDER BY t.timestamp, t.id COLLATE "C"',
    [eventId],
  );
  return rows.map((row) => row.turnId);
}

async function missingEventIds(db: PgExecutor, eventIds: readonly string[]): Promise<string[]> {
  if (eventIds.length === 0) return [];
  const rows = await db.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::text[])', [[...new Set(eventIds)]]);
  const found = new Set(rows.map((row) => row.id));
  return eventIds.filter((id) => !found.has(id));
}

/** Every session and turn operation but `lineStart` (line-start.ts, built on these). */
export function turnQueries(db: PgExecutor): SessionStore & Omit<TurnStore, 'lineStart'> {
  return {
    getSession: (sessionId) => getSession(db, sessionId),
    listSessions: (page) => listSessions(db, page),
    childSessions: (sessionId) => childSessions(db, sessionId),
    insertSession: (session) => insertSession(db, session),
    updateSessionSettings: (sessionId, update) => updateSessionSettings(db, sessionId, update),
    getTurn: (turnId) => getTurn(db, turnId),
    getTurns: (turnIds) => getTurns(db, turnIds),
    turnWithCompaction: (turnId) => turnWithCompaction(db, turnId),
    chainPage: (query) => chainPage(db, query),
    chainRanges: (ranges) => chainRanges(db, ranges),
    appendToSession: (append) => appendToSession(db, append),
    compactionsFolding: (compactionId) => turnsWhere(db, 't.previous_compaction_id = $1 ORDER BY t.depth', [compactionId]),
    compactionCovering: (query) => compactionCovering(db, query),
    eventIdsByTurn: (turnIds) => eventIdsByTurn(db, turnIds),
    turnsCitingEvent: (eventId) => turnsCitingEvent(db, eventId),
    missingEventIds: (eventIds) => missingEventIds(db, eventIds),
  };
}
