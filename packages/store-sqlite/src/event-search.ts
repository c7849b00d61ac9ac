// Event search on SQLite: FTS5 over events (events_fts), ranked by bm25 (the store's score is bm25
// negated: higher is better) and keyset-paged on (bm25, rowid).

import type { EventSearchFilters, EventSearchHit, EventSearchQuery, SearchPage } from '@agent-ledger/store';
import { chooseExpression, decodeCursor, encodeCursor, type KeysetPosition, withSearchErrors } from './fts5-query.ts';
import { snippetOf } from './fts5-snippet.ts';
import type { Clauses } from './search-clauses.ts';
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

/** One ranked page of the events `expression` matches under the filters. */
function eventRows(
  connection: SqliteConnection,
  { expression, filters, after, take }: { expression: string; filters: Clauses; after: KeysetPosition | null; take: number },
): EventRow[] {
  const where = ['events_fts MATCH ?', ...filters.clauses];
  const values: unknown[] = [expression, ...filters.parameters];
  if (after) {
    where.push('(bm25(events_fts) > ? OR (bm25(events_fts) = ? AND e.rowid > ?))');
    values.push(after.score, after.score, after.rowid);
  }
  const sql =
    'SELECT e.id, e.channel, e.external_id AS externalId, e.author, e.kind, e.payload, e.occurred_at AS occurredAt, ' +
    'e.received_at AS receivedAt, e.seq, e.prev_hash AS prevHash, e.hash, e.search_text AS searchText, ' +
    'e.rowid AS rowid, bm25(events_fts) AS score ' +
    `FROM events_fts JOIN events e ON e.rowid = events_fts.rowid WHERE ${where.join(' AND ')} ORDER BY score, e.rowid LIMIT ?`;
  return connection.statement(sql).all(...values, take) as EventRow[];
}

export function searchEvents(connection: SqliteConnection, query: EventSearchQuery): SearchPage<EventSearchHit> {
  return withSearchErrors(query.match, () => {
    const filters = eventFilters(query.filters ?? {});
    const after = decodeCursor(query.cursor);
    const expression = chooseExpression(
      query.match,
      (candidate) => eventRows(connection, { expression: candidate, filters, after: null, take: 1 }).length > 0,
    );
    if (expression === undefined) return { hits: [], nextCursor: null };
    const rows = eventRows(connection, { expression, filters, after, take: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const hits: EventSearchHit[] = page.map(({ rowid, score, ...record }) => ({
      event: record as unknown as EventSearchHit['event'],
      score: -score,
      snippet: snippetOf(connection, { table: 'events_fts', expression, rowid }),
      cursor: encodeCursor({ score, rowid }),
    }));
    const last = page.at(-1);
    return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
  });
}
