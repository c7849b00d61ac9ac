// lineStart on SQLite: the reads it stands for (turnWithCompaction, the session, a newest-first
// chain page, that page's event links) one after another on the one connection. In-process there
// is no round trip to save, so it is the same statements as apart, not a statement of its own.

import type { TurnStore } from '@agent-ledger/store';
import { getSession } from './session-queries.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';
import { chainPage, eventIdsByTurn, turnWithCompaction } from './turn-queries.ts';

type LineStartQuery = Parameters<TurnStore['lineStart']>[0];
type LineStart = NonNullable<Awaited<ReturnType<TurnStore['lineStart']>>>;

function lineStart(connection: SqliteConnection, query: LineStartQuery): LineStart | undefined {
  const read = turnWithCompaction(connection, query.turnId);
  if (!read) return undefined;
  const session = getSession(connection, query.sessionId ?? read.turn.sessionId);
  const newestFromDepth = read.firstKept?.depth ?? (read.compaction ? read.compaction.depth + 1 : 0);
  const newest = chainPage(connection, {
    sessionId: read.turn.sessionId,
    fromDepth: newestFromDepth,
    toDepth: read.turn.depth,
    newestFirst: true,
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
