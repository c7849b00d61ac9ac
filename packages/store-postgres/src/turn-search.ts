// Turn search: the tsquery that finds something under the filters, a ranked page of its matches in
// the asked view, and snippets for the hits shown; and the counts of matching and stored turns.

import type { SearchMatch, SearchPage, TurnSearchFilters, TurnSearchHit, TurnSearchQuery } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { decodeCursor, encodeCursor, type KeysetPosition } from './search-cursor.ts';
import { turnSnippets } from './search-snippets.ts';
import { chooseExpression, type Expression, matchExpressions } from './search-tsquery.ts';
import { SqlParameters } from './sql-parameters.ts';
import { turnFilters } from './turn-search-clauses.ts';
import { rawTurnPage, resolvedTurnPage, type TurnRow } from './turn-search-pages.ts';

async function anyTurnMatch(db: PgExecutor, expression: Expression, filters: TurnSearchFilters): Promise<boolean> {
  const parameters = new SqlParameters();
  const where = [`t.search_vector @@ ${expression(parameters)}`, ...turnFilters(filters, parameters)];
  const rows = await db.query(`SELECT 1 FROM agent_turns t WHERE ${where.join(' AND ')} LIMIT 1`, parameters.values);
  return rows.length > 0;
}

const positionOf = (row: TurnRow): KeysetPosition => ({ score: row.score, age: row.timestamp, id: row.id });

function hitOf(row: TurnRow, snippets: Map<string, string>): TurnSearchHit {
  return {
    turnId: row.id,
    sessionId: row.sessionId,
    depth: row.depth,
    turnType: row.turnType,
    role: row.role,
    timestamp: row.timestamp,
    score: row.score,
    snippet: snippets.get(row.id) ?? '',
    canonicalTurnId: row.canonical,
    canonicalSessionId: row.canonicalSessionId,
    canonicalTimestamp: row.canonicalTimestamp,
    cursor: encodeCursor(positionOf(row)),
  };
}

export async function searchTurns(db: PgExecutor, query: TurnSearchQuery): Promise<SearchPage<TurnSearchHit>> {
  const after = decodeCursor(query.cursor);
  const expression = await chooseExpression(matchExpressions(query.match), (candidate) =>
    anyTurnMatch(db, candidate, query.filters ?? {}),
  );
  if (expression === undefined) return { hits: [], nextCursor: null };
  const request = { expression, query, after, take: query.limit + 1 };
  const rows = await (query.view === 'raw' ? rawTurnPage(db, request) : resolvedTurnPage(db, request));
  const page = rows.slice(0, query.limit);
  const snippets =
    query.snippets === false || page.length === 0
      ? new Map<string, string>()
      : await turnSnippets(
          db,
          expression,
          page.map((row) => row.id),
        );
  const hits = page.map((row) => hitOf(row, snippets));
  const last = page.at(-1);
  return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(positionOf(last)) : null };
}

export async function countTurnMatches(db: PgExecutor, match: SearchMatch): Promise<number> {
  let found = 0;
  // The same choice as a search: the first expression that matches anything, else the last.
  for (const expression of matchExpressions(match)) {
    const parameters = new SqlParameters();
    const sql = `SELECT count(*)::float8 AS n FROM agent_turns t WHERE t.search_vector @@ ${expression(parameters)}`;
    found = (await db.query<{ n: number }>(sql, parameters.values))[0]?.n ?? 0;
    if (found > 0) break;
  }
  return found;
}

export async function countTurns(db: PgExecutor): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::float8 AS n FROM agent_turns'))[0]?.n ?? 0;
}
