// Event search: the plan (which words rank, the tsquery that finds something under the filters, and
// which matches rank when too many match: the newest by receivedAt, search-plan.ts), then a ranked
// page of its matching events with a headline each, in one statement.

import type { EventSearchFilters, EventSearchHit, EventSearchQuery, SearchPage } from '@agent-ledger/store';
import { EVENT_COLUMNS } from './event-queries.ts';
import type { PgExecutor } from './pg-executor.ts';
import { SEARCH_CONFIGURATION } from './schema.ts';
import { afterClause, decodeCursor, encodeCursor, type KeysetPosition } from './search-cursor.ts';
import { plannedRows, planSearch, type SearchPlan } from './search-plan.ts';
import { bm25Score, RANK, weightsClause } from './search-ranking.ts';
import { HEADLINE_OPTIONS, HEADLINE_TEXT, snippetOf } from './search-snippets.ts';
import type { SearchSource } from './search-source.ts';
import type { WordWeight } from './search-statistics.ts';
import { SqlParameters } from './sql-parameters.ts';

type EventRow = EventSearchHit['event'] & { score: number; headline: string | null };

/** The search's filters over an event `e`, binding their values. */
function eventFilters(filters: EventSearchFilters, parameters: SqlParameters): string[] {
  const where: string[] = [];
  if (filters.channel !== undefined) where.push(`e.channel = ${parameters.add(filters.channel)}`);
  if (filters.author !== undefined) where.push(`e.author = ${parameters.add(filters.author)}`);
  if (filters.kind !== undefined) where.push(`e.kind = ${parameters.add(filters.kind)}`);
  if (filters.since !== undefined) where.push(`e.occurred_at >= ${parameters.add(filters.since)}::bigint`);
  if (filters.until !== undefined) where.push(`e.occurred_at <= ${parameters.add(filters.until)}::bigint`);
  return where;
}

/** Where an event search looks: events under the search's filters, newest by receivedAt. */
function eventSource(filters: EventSearchFilters): SearchSource {
  return {
    table: 'events',
    alias: 'e',
    age: 'e.received_at',
    filters: (parameters) => eventFilters(filters, parameters),
    population: () => [],
    kinds: [{ kind: '', rows: () => [], sampleOrder: 'e.id' }],
  };
}

/** Which page to read: the plan, source and words' weights, where the page before ended, and how many rows. */
interface EventPageRequest {
  plan: SearchPlan;
  source: SearchSource;
  /** The ranking words' bm25 weights (null: advanced syntax, ranked by ts_rank_cd). */
  weights: readonly WordWeight[] | null;
  after: KeysetPosition | null;
  take: number;
}

function rankedEventPage(db: PgExecutor, { plan, source, weights, after, take }: EventPageRequest): Promise<EventRow[]> {
  const parameters = new SqlParameters();
  const { where, rank } = plannedRows(plan, source, parameters);
  const ranking = weights && weights.length > 0 ? `WITH ${weightsClause(weights, parameters)} ` : '';
  const score = ranking ? bm25Score('e.search_vector', "''") : RANK('e.search_vector', rank());
  if (after) where.push(afterClause(after, { score, age: 'e.received_at', id: 'e.id' }, parameters));
  const ranked =
    `${ranking}SELECT ${EVENT_COLUMNS}, ${score} AS score FROM events e WHERE ${where.join(' AND ')} ` +
    `ORDER BY score DESC, e.received_at, e.id COLLATE "C" LIMIT ${parameters.add(take)}`;
  // The headline over the page's rows only (the outer query runs after the LIMIT), marking every
  // word the page matched.
  const sql =
    `SELECT r.*, ts_headline('${SEARCH_CONFIGURATION}'::regconfig, ${HEADLINE_TEXT('r."searchText"')}, ${plan.expression.match(parameters)}, ` +
    `${parameters.add(HEADLINE_OPTIONS)}) AS headline FROM (${ranked}) r ORDER BY r.score DESC, r."receivedAt", r.id COLLATE "C"`;
  return db.query<EventRow>(sql, parameters.values);
}

const positionOf = (event: EventSearchHit['event'], score: number): KeysetPosition => ({
  score,
  age: event.receivedAt,
  id: event.id,
});

export async function searchEvents(db: PgExecutor, query: EventSearchQuery): Promise<SearchPage<EventSearchHit>> {
  const after = decodeCursor(query.cursor);
  const source = eventSource(query.filters ?? {});
  const plan = await planSearch(db, query.match, source);
  if (plan === undefined) return { hits: [], nextCursor: null };
  const weights = plan.weights;
  const rows = await rankedEventPage(db, { plan, source, weights, after, take: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const hits: EventSearchHit[] = page.map(({ score, headline, ...event }) => ({
    event,
    score,
    snippet: snippetOf(headline, event.searchText),
    cursor: encodeCursor(positionOf(event, score)),
  }));
  const last = hits.at(-1);
  return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(positionOf(last.event, last.score)) : null };
}
