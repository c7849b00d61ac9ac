// lineStart on PostgreSQL: the turn with its line's newest compaction and first kept turn, the
// viewing session's row, the newest page of the turn's own session since that first kept turn, and
// the events that page cites, in ONE statement: where buildContext paid a round trip for each
// (turnWithCompaction, getSession, chainPage, eventIdsByTurn), it pays one. Inside a transaction the
// session row must be locked as getSession locks it there, so the parts are read one by one.
//
// What the statement costs is most of what a context at the head costs on this engine, so it is
// lean (measured at 100k turns, a page of ~30 turns; see docs/architecture.md): one scan ships each
// turn once (the turn, its compaction and first kept turn are usually page rows); the page is read
// once (a CTE read twice was materialized, content and all); the session and the event links are
// computed once, on the turn's own row; and page rows leave out searchText, a third of the bytes.

import type { SessionRecord, StoredTurn, TurnStore } from '@agent-ledger/store';
import { named, type PgExecutor } from './pg-executor.ts';
import {
  chainPage,
  decodeSession,
  eventIdsByTurn,
  getSession,
  groupLinks,
  pageHasChildren,
  SESSION_COLUMNS,
  TURN_FIELDS,
  type TurnRow,
  turnWithCompaction,
} from './turn-queries.ts';

type LineStartQuery = Parameters<TurnStore['lineStart']>[0];
type LineStart = NonNullable<Awaited<ReturnType<TurnStore['lineStart']>>>;
type LineRow = LineStart['newest'][number];

// The page's depths: from the first kept turn (else after the compaction, else 0), at most $3 of the
// newest. A session's own turns hold every depth from where it starts to its head (it appends only
// at its head), so "the newest $3 in [from, to]" is the depth range [max(from, to - $3 + 1), to]:
// one index range, which the turn, its compaction and first kept turn join by id when outside it.
const BOUNDS =
  'target AS (SELECT t.session_id, t.depth, t.latest_compaction_id FROM agent_turns t WHERE t.id = $1), ' +
  'compaction AS (SELECT c.id, c.depth, c.first_kept_turn_id FROM agent_turns c WHERE c.id = (SELECT latest_compaction_id FROM target)), ' +
  'kept AS (SELECT k.id, k.depth FROM agent_turns k WHERE k.id = (SELECT first_kept_turn_id FROM compaction)), ' +
  'bounds AS (SELECT session_id, depth AS to_depth, greatest(coalesce((SELECT depth FROM kept), (SELECT depth + 1 FROM compaction), 0), depth - $3::bigint + 1) AS from_depth FROM target)';
const LINE_IDS = '$1, (SELECT id FROM compaction), (SELECT id FROM kept)';

function inPage(alias: string): string {
  return `${alias}.session_id = (SELECT session_id FROM bounds) AND ${alias}.depth BETWEEN (SELECT from_depth FROM bounds) AND (SELECT to_depth FROM bounds)`;
}

// Only the turn, its compaction and first kept turn carry searchText (LineStart.newest leaves it out).
const FIELDS = TURN_FIELDS.replace(
  't.search_text AS "searchText"',
  `CASE WHEN t.id IN (${LINE_IDS}) THEN t.search_text END AS "searchText"`,
);
// As every turn read derives it (turn-queries.ts, LIMIT 1 probes): rows come per session, newest
// first, so the next deeper row read is usually the row's child.
const HAS_CHILDREN = pageHasChildren('lag(t.depth) OVER (PARTITION BY t.session_id ORDER BY t.depth DESC)');
// Computed once (no reference to the row), shipped on the turn's own row only.
const SESSION =
  `CASE WHEN t.id = $1 THEN (SELECT row_to_json(s) FROM (SELECT ${SESSION_COLUMNS} FROM agent_sessions ` +
  'WHERE id = coalesce($2, (SELECT session_id FROM target))) s) END AS session';
// `= ANY(ARRAY(...))` keeps the links to index probes of the page's ids: as `IN (SELECT ...)` the
// planner hashed a scan of all of turn_events, and a subquery per page row cost a third of the statement.
const LINKS =
  "CASE WHEN t.id = $1 THEN (SELECT json_agg(json_build_object('turnId', e.turn_id, 'eventId', e.event_id) ORDER BY e.turn_id, e.event_id COLLATE \"C\") " +
  `FROM turn_events e WHERE e.turn_id = ANY(ARRAY(SELECT p.id FROM agent_turns p WHERE ${inPage('p')}))) END AS links`;

// $1 the turn, $2 the viewing session (null: the turn's own), $3 how many newest turns.
const LINE_START = named(
  'line_start',
  `WITH ${BOUNDS} SELECT (${inPage('t')}) AS newest, ${FIELDS}, ${HAS_CHILDREN}, ${SESSION}, ${LINKS} ` +
    `FROM agent_turns t WHERE (${inPage('t')}) OR t.id IN (${LINE_IDS})`,
);

type LineStartRow = TurnRow & {
  newest: boolean;
  session: SessionRecord | null;
  links: Array<{ turnId: string; eventId: string }> | null;
};

/**
 * A page row as one object literal: dropping the statement's extra columns with a rest spread cost
 * more per row than the rest of its decoding (Node 20).
 */
function lineRowOf(row: LineStartRow): LineRow {
  return {
    id: row.id,
    sessionId: row.sessionId,
    parentTurnId: row.parentTurnId,
    depth: row.depth,
    role: row.role,
    content: row.content ?? null,
    model: row.model,
    tokenCount: row.tokenCount,
    timestamp: row.timestamp,
    toolCallCount: row.toolCallCount,
    metadata: row.metadata ?? null,
    turnType: row.turnType,
    summary: row.summary,
    summarizedThroughTurnId: row.summarizedThroughTurnId,
    firstKeptTurnId: row.firstKeptTurnId,
    tokensBefore: row.tokensBefore,
    tokensAfter: row.tokensAfter,
    trigger: row.trigger,
    strategy: row.strategy,
    summarizer: row.summarizer,
    usageInputTokens: row.usageInputTokens,
    usageOutputTokens: row.usageOutputTokens,
    latestCompactionId: row.latestCompactionId,
    cumulativeTokens: row.cumulativeTokens,
    coversFromDepth: row.coversFromDepth,
    previousCompactionId: row.previousCompactionId,
    summarizedThroughDepth: row.summarizedThroughDepth,
    hash: row.hash,
    hasChildren: row.hasChildren,
  };
}

/** Where raw turns resume by the turn's own newest compaction (as the statement's bounds say). */
function newestFromDepthOf(line: { compaction?: StoredTurn; firstKept?: StoredTurn }): number {
  return line.firstKept?.depth ?? (line.compaction ? line.compaction.depth + 1 : 0);
}

/** The parts one by one (inside a transaction, where the session row is read locked). */
async function lineStartApart(db: PgExecutor, query: LineStartQuery): Promise<LineStart | undefined> {
  const read = await turnWithCompaction(db, query.turnId);
  if (!read) return undefined;
  const session = await getSession(db, query.sessionId ?? read.turn.sessionId);
  const newestFromDepth = newestFromDepthOf(read);
  const page = await chainPage(db, {
    sessionId: read.turn.sessionId,
    fromDepth: newestFromDepth,
    toDepth: read.turn.depth,
    newestFirst: true,
    limit: query.newestLimit,
  });
  const newestEventIds = await eventIdsByTurn(
    db,
    page.map((row) => row.id),
  );
  const newest = page.map(({ searchText: _, ...row }) => row);
  return { ...read, ...(session ? { session } : {}), newestFromDepth, newest, newestEventIds };
}

async function lineStart(db: PgExecutor, query: LineStartQuery): Promise<LineStart | undefined> {
  if (db.inTransaction) return lineStartApart(db, query);
  const rows = await db.query<LineStartRow>(LINE_START, [query.turnId, query.sessionId ?? null, query.newestLimit]);
  const own = rows.find((row) => row.id === query.turnId);
  if (!own) return undefined;
  const byId = new Map(rows.map((row) => [row.id, row]));
  // The statement gives searchText to these three rows only.
  const lineTurn = (turnId: string | null | undefined): StoredTurn | undefined => {
    const row = turnId ? byId.get(turnId) : undefined;
    return row ? { ...lineRowOf(row), searchText: row.searchText } : undefined;
  };
  const turn = lineTurn(query.turnId) as StoredTurn;
  const compaction = lineTurn(turn.latestCompactionId);
  const firstKept = lineTurn(compaction?.firstKeptTurnId);
  const newest = rows.filter((row) => row.newest).map(lineRowOf);
  return {
    turn,
    ...(compaction ? { compaction } : {}),
    ...(firstKept ? { firstKept } : {}),
    ...(own.session ? { session: decodeSession(own.session) } : {}),
    newestFromDepth: newestFromDepthOf({ compaction, firstKept }),
    newest: newest.sort((left, right) => right.depth - left.depth),
    newestEventIds: groupLinks(own.links ?? []),
  };
}

export function lineStartQueries(db: PgExecutor): Pick<TurnStore, 'lineStart'> {
  return { lineStart: (query) => lineStart(db, query) };
}
