// Event search: the tsquery that finds something under the filters, then a ranked page of its
// matching events with a headline each, in one statement.

import type { EventSearchFilters, EventSearchHit, EventSearchQuery, SearchPage } from '@agent-ledger/store';
import { EVENT_COLUMNS } from './event-queries.ts';
import type { PgExecutor } from './pg-executor.ts';
import { afterClause, decodeCursor, encodeCursor, type KeysetPosition } from './search-cursor.ts';
import { RANK } from './search-ranking.ts';
import { HEADLINE_OPTIONS, HEADLINE_TEXT, snippetOf } from './search-snippets.ts';
import { chooseExpression, type Expression, matchExpressions } from './search-tsquery.ts';
import { SqlParameters } from './sql-parameters.ts';

type EventRow = EventSearchHit['event'] & { score: number; headline: string | null };

/** The conditions of a match under the filters, and its tsquery's SQL. */
function matching(expression: Expression, filters: EventSearchFilters, parameters: SqlParameters) {
  const tsquery = expression(parameters);
  const where = [`e.search_vector @@ ${tsquery}`];
  if (filters.channel !== undefined) where.push(`e.channel = ${parameters.add(filters.channel)}`);
  if (filters.author !== undefined) where.push(`e.author = ${parameters.add(filters.author)}`);
  if (filters.kind !== undefined) where.push(`e.kind = ${parameters.add(filters.kind)}`);
  if (filters.since !== undefined) where.push(`e.occurred_at >= ${parameters.add(filters.since)}::bigint`);
  if (filters.until !== undefined) where.push(`e.occurred_at <= ${parameters.add(filters.until)}::bigint`);
  return { tsquery, where };
}

async function anyEventMatch(db: PgExecutor, expression: Expression, filters: EventSearchFilters): Promise<boolean> {
  const parameters = new SqlParameters();
  const { where } = matching(expression, filters, parameters);
  return (await db.query(`SELECT 1 FROM events e WHERE ${where.join(' AND ')} LIMIT 1`, parameters.values)).length > 0;
}

/** Which page to read: the tsquery, the filters, where the page before ended, and how many rows. */
interface EventPageRequest {
  expression: Expression;
  filters: EventSearchFilters;
  after: KeysetPosition | null;
  take: number;
}

function rankedEventPage(db: PgExecutor, { expression, filters, after, take }: EventPageRequest): Promise<EventRow[]> {
  const parameters = new SqlParameters();
  const { tsquery, where } = matching(expression, filters, parameters);
  const score = RANK('e.search_vector', tsquery);
  if (after) where.push(afterClause(after, { score, age: 'e.received_at', id: 'e.id' }, parameters));
  const ranked =
    `SELECT ${EVENT_COLUMNS}, ${score} AS score FROM events e WHERE ${where.join(' AND ')} ` +
    `ORDER BY score DESC, e.received_at, e.id COLLATE "C" LIMIT ${parameters.add(take)}`;
  // The headline over the page's rows only (the outer query runs after the LIMIT).
  const sql =
    `SELECT r.*, ts_headline('english'::regconfig, ${HEADLINE_TEXT('r."searchText"')}, ${tsquery}, ` +
    `${parameters.add(HEADLINE_OPTIONS)}) AS headline FROM (${ranked}) r ORDER BY r.score DESC, r."receivedAt", r.id COLLATE "C"`;
  return db.query<EventRow>(sql, parameters.values);
}

const positionOf = (event: EventSearchHit['event'], score: number): KeysetPosition => ({
  score,
  age: event.receivedAt,
  id: event.id,
});

export async function searchEvents(db: PgExecutor, query: EventSearchQuery): Promise<SearchPage<EventSearchHit>> {
  const filters = query.filters ?? {};
  const after = decodeCursor(query.cursor);
  const expression = await chooseExpression(matchExpressions(query.match), (candidate) => anyEventMatch(db, candidate, filters));
  if (expression === undefined) return { hits: [], nextCursor: null };
  const rows = await rankedEventPage(db, { expression, filters, after, take: query.limit + 1 });
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
