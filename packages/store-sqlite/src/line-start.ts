// lineStart on SQLite: the reads it stands for (turnWithCompaction, the session, a newest-first
// chain page, that page's event links) one after another on the one connection. In-process there
// is no round trip to save, so it is the same statements as apart, not a statement of its own; the
// page's only difference is that it leaves out searchText, as LineStart.newest says.

import type { TurnStore } from '@agent-ledger/store';
import { getSession } from './session-queries.ts';
import { parseJson, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';
import { eventIdsByTurn, HAS_CHILDREN, TURN_FIELDS, turnWithCompaction } from './turn-queries.ts';

type LineStartQuery = Parameters<TurnStore['lineStart']>[0];
type LineStart = NonNullable<Awaited<ReturnType<TurnStore['lineStart']>>>;
type LineRow = LineStart['newest'][number];

// chainPage's columns but searchText, newest first; hasChildren derived as every turn read derives it.
const NEWEST_PAGE =
  `SELECT ${TURN_FIELDS.replace(', t.search_text AS searchText', '')}, ${HAS_CHILDREN} ` +
  'FROM agent_turns t WHERE t.session_id = ? AND t.depth BETWEEN ? AND ? ORDER BY t.depth DESC LIMIT ?';

function newestPage(
  connection: SqliteConnection,
  { sessionId, fromDepth, toDepth, limit }: { sessionId: string; fromDepth: number; toDepth: number; limit: number },
): LineRow[] {
  const rows = connection.statement(NEWEST_PAGE).all(sessionId, fromDepth, toDepth, limit) as Array<Record<string, unknown>>;
  for (const row of rows) {
    row.content = parseJson(row.content);
    row.metadata = parseJson(row.metadata);
    row.hasChildren = row.hasChildren === 1;
  }
  return rows as unknown as LineRow[];
}

function lineStart(connection: SqliteConnection, query: LineStartQuery): LineStart | undefined {
  const read = turnWithCompaction(connection, query.turnId);
  if (!read) return undefined;
  const session = getSession(connection, query.sessionId ?? read.turn.sessionId);
  const newestFromDepth = read.firstKept?.depth ?? (read.compaction ? read.compaction.depth + 1 : 0);
  const newest = newestPage(connection, {
    sessionId: read.turn.sessionId,
    fromDepth: newestFromDepth,
    toDepth: read.turn.depth,
    limit: query.newestLimit,
  });
  const newestEventIds = eventIdsByTurn(
    connection,
    newest.map((row) => row.id),
  );
  return { ...read, ...(session ? { session } : {}), newestFromDepth, newest, newestEventIds };
}

export function lineStartQueries(connection: SqliteConnection): Synchronous<Pick<TurnStore, 'lineStart'>> {
  return { lineStart: (query) => lineStart(connection, query) };
}
