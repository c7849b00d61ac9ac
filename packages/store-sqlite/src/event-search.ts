// Event search on SQLite: FTS5 over events (events_fts), ranked by bm25 (the store's score is bm25
// negated: higher is better) and keyset-paged on (bm25, rowid). What is ranked is bounded as for
// turns (search-candidates.ts): common words do not rank, and at most the newest RANKED_ROWS matches do.

import type { EventSearchFilters, EventSearchHit, EventSearchQuery, SearchPage } from '@agent-ledger/store';
import { decodeCursor, encodeCursor, type KeysetPosition, type SearchExpression, withSearchErrors } from './fts5-query.ts';
import { type SearchIndex, snippetsOf } from './fts5-snippet.ts';
import { type NewestRows, type RowSource, rankedRows } from './search-candidates.ts';
import { type Clauses, keyset } from './search-clauses.ts';
import { planSearch } from './search-plan.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

type EventRow = Record<string, unknown> & { rowid: number; score: number };

function eventFilters(filters: EventSearchFilters): Clauses {
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    parameters.push(value);
  };
  if (filters.channel !== undefined) add('e.channel = ?', filters.channel);
  if (filters.author !== undefined) add('e.author = ?', filters.author);
  if (filters.kind !== undefined) add('e.kind = ?', filters.kind);
  if (filters.since !== undefined) add('e.occurred_at >= ?', filters.since);
  if (filters.until !== undefined) add('e.occurred_at <= ?', filters.until);
  return { clauses, parameters };
}

const EVENTS_INDEX: readonly SearchIndex[] = ['events_fts'];
const EVENTS: RowSource = { table: 'events', alias: 'e' };

/** One ranked page of the events `expression` matches under the filters (bounded: the newest of them). */
function eventRows(
  connection: SqliteConnection,
  {
    expression,
    newest,
    filters,
    after,
    take,
  }: { expression: SearchExpression; newest: NewestRows | null; filters: Clauses; after: KeysetPosition | null; take: number },
): EventRow[] {
  const matched = rankedRows(EVENTS_INDEX, expression, newest);
  const page = keyset(after, 'm.score', 'e.rowid');
  const where = [...filters.clauses, ...page.clauses];
  const sql =
    'SELECT e.id, e.channel, e.external_id AS externalId, e.author, e.kind, e.payload, e.occurred_at AS occurredAt, ' +
    'e.received_at AS receivedAt, e.seq, e.prev_hash AS prevHash, e.hash, e.search_text AS searchText, ' +
    `e.rowid AS rowid, m.score AS score FROM ${matched.sql} CROSS JOIN events e ON e.rowid = m.matchRowid ` +
    `${where.length > 0 ? `WHERE ${where.join(' AND ')} ` : ''}ORDER BY score, e.rowid LIMIT ?`;
  return connection.statement(sql).all(...matched.parameters, ...filters.parameters, ...page.parameters, take) as EventRow[];
}

export function searchEvents(connection: SqliteConnection, query: EventSearchQuery): SearchPage<EventSearchHit> {
  return withSearchErrors(query.match, () => {
    const filters = eventFilters(query.filters ?? {});
    const after = decodeCursor(query.cursor);
    const plan = planSearch(connection, query.match, { indexes: EVENTS_INDEX, rows: EVENTS, filters });
    if (plan === undefined) return { hits: [], nextCursor: null };
    const { expression, newest } = plan;
    const rows = eventRows(connection, { expression, newest, filters, after, take: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const snippets = snippetsOf(connection, {
      table: 'events_fts',
      expression: expression.match,
      rowids: page.map((row) => row.rowid),
      floor: newest?.floor ?? null,
    });
    const hits: EventSearchHit[] = page.map(({ rowid, score, ...record }) => ({
      event: record as unknown as EventSearchHit['event'],
      score: -score,
      snippet: snippets.get(rowid) ?? '',
      cursor: encodeCursor({ score, rowid }),
    }));
    const last = page.at(-1);
    return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
  });
}
