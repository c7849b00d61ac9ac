// Turn search: the plan (which words rank, the tsquery that finds something under the filters, and
// which matches rank when too many match: the newest by timestamp, search-plan.ts), a ranked page of
// its matches in the asked view, and snippets for the hits shown; and the counts of matching and
// stored turns.

import type { SearchMatch, SearchPage, TurnSearchFilters, TurnSearchHit, TurnSearchQuery } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { decodeCursor, encodeCursor, type KeysetPosition } from './search-cursor.ts';
import { planSearch } from './search-plan.ts';
import { turnSnippets } from './search-snippets.ts';
import type { RankedKind, SearchSource } from './search-source.ts';
import { matchExpressions } from './search-tsquery.ts';
import { SqlParameters } from './sql-parameters.ts';
import { turnFilters } from './turn-search-clauses.ts';
import { rawTurnPage, resolvedTurnPage, type TurnRow } from './turn-search-pages.ts';

/**
 * A turn type's rows: bm25 weighs words among the turn type searched, as SQLite's two indexes do.
 * Normal turns are sampled by id (random ids: a spread over time and sessions, along the primary
 * key); summaries along their partial index by line, since by id most rows read would be turns.
 */
const turnKind = (turnType: 'normal' | 'compaction'): RankedKind => ({
  kind: turnType,
  rows: (parameters) => [`t.turn_type = ${parameters.add(turnType)}`],
  sampleOrder: turnType === 'normal' ? 't.id' : 't.session_id, t.depth',
});

/** Where a turn search looks: agent_turns under the search's filters, newest by timestamp. */
function turnSource(filters: TurnSearchFilters): SearchSource {
  return {
    kinds: filters.turnType ? [turnKind(filters.turnType)] : [turnKind('normal'), turnKind('compaction')],
    table: 'agent_turns',
    alias: 't',
    age: 't.timestamp',
    filters: (parameters) => turnFilters(filters, parameters),
    population: (parameters) => turnFilters({ turnType: filters.turnType }, parameters),
  };
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

/**
 * A page of a turn search, ranked as planSearch decides (common words do not rank; at most the
 * newest RANKED_ROWS matches do: @agent-ledger/store search-bounds.ts).
 */
export async function searchTurns(db: PgExecutor, query: TurnSearchQuery): Promise<SearchPage<TurnSearchHit>> {
  const after = decodeCursor(query.cursor);
  const source = turnSource(query.filters ?? {});
  const plan = await planSearch(db, query.match, source);
  if (plan === undefined) return { hits: [], nextCursor: null };
  const weights = plan.weights;
  const request = { plan, source, weights, query, after, take: query.limit + 1 };
  const rows = await (query.view === 'raw' ? rawTurnPage(db, request) : resolvedTurnPage(db, request));
  const page = rows.slice(0, query.limit);
  const snippets =
    query.snippets === false || page.length === 0
      ? new Map<string, string>()
      : await turnSnippets(
          db,
          plan.expression.match,
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
