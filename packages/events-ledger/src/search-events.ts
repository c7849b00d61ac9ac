// Full-text search over events (author and every string of the payload), ranked by bm25, with
// snippets. Events are never compacted, so there is only the raw view.

import { decodeCursor, encodeCursor, InvalidInputError, type LedgerEvent, planMatch } from '@nexus/core';
import { type EventRow, type LedgerDatabase, withSearchErrors } from '@nexus/db';
import { eventFromRow } from './event-mapping.ts';

export interface EventSearchOptions {
  channel?: string;
  author?: string;
  kind?: string;
  /** occurredAt bounds, inclusive, ms since the epoch. */
  since?: number;
  until?: number;
  limit?: number;
  cursor?: string;
  /** The query is FTS5 syntax; a syntax error is SearchSyntaxError. */
  advanced?: boolean;
}

export interface EventHit {
  eventId: string;
  channel: string;
  seq: number;
  author: string | null;
  occurredAt: number;
  snippet: string;
  score: number;
  /** Continues the search right after this hit (to page through several ranked lists at once). */
  cursor: string;
  event: LedgerEvent;
}

export interface EventSearchResult {
  hits: EventHit[];
  nextCursor: string | null;
}

type Row = EventRow & { rowid: number; score: number; snippet: string };

export function searchEvents(database: LedgerDatabase, query: string, options: EventSearchOptions = {}): EventSearchResult {
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new InvalidInputError('limit must be 1 to 200.', 'limit');
  const plan = planMatch(query, options.advanced);
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    parameters.push(value);
  };
  if (options.channel !== undefined) add('e.channel = ?', options.channel);
  if (options.author !== undefined) add('e.author = ?', options.author);
  if (options.kind !== undefined) add('e.kind = ?', options.kind);
  if (options.since !== undefined) add('e.occurred_at >= ?', options.since);
  if (options.until !== undefined) add('e.occurred_at <= ?', options.until);
  const run = (expression: string, after: ReturnType<typeof decodeCursor>, take: number): Row[] => {
    const where = ['events_fts MATCH ?', ...clauses];
    const values: unknown[] = [expression, ...parameters];
    if (after) {
      where.push('(bm25(events_fts) > ? OR (bm25(events_fts) = ? AND e.rowid > ?))');
      values.push(after.score, after.score, after.rowid);
    }
    const sql =
      'SELECT e.id, e.channel, e.external_id AS externalId, e.author, e.kind, e.payload, e.occurred_at AS occurredAt, ' +
      'e.received_at AS receivedAt, e.seq, e.prev_hash AS prevHash, e.hash, e.search_text AS searchText, e.rowid AS rowid, ' +
      "bm25(events_fts) AS score, '' AS snippet " +
      `FROM events_fts JOIN events e ON e.rowid = events_fts.rowid WHERE ${where.join(' AND ')} ORDER BY score, e.rowid LIMIT ?`;
    return withSearchErrors(plan, () => database.sqlite.prepare(sql).all(...values, take) as Row[]);
  };
  // Every term first; any term only when nothing matches every term (the same choice on every page).
  const expression = plan.expressions.find(
    (candidate, index) => index === plan.expressions.length - 1 || run(candidate, null, 1).length > 0,
  );
  if (expression === undefined) return { hits: [], nextCursor: null };
  const rows = run(expression, decodeCursor(options.cursor), limit + 1);
  const page = rows.slice(0, limit);
  // Snippets only for the hits shown: computed in the ranking query they cost as much as the ranking.
  // (CAST: FTS5 drops a `rowid = ?` constraint bound as a double, and would snippet the first match.)
  const snippet = database.sqlite.prepare(
    "SELECT snippet(events_fts, 0, '[', ']', '…', 16) AS snippet FROM events_fts WHERE events_fts MATCH ? AND rowid = CAST(? AS INTEGER)",
  );
  for (const row of page) row.snippet = (snippet.get(expression, row.rowid) as { snippet: string } | undefined)?.snippet ?? '';
  const last = page.at(-1);
  return {
    hits: page.map((row) => ({
      eventId: row.id,
      channel: row.channel,
      seq: row.seq,
      author: row.author,
      occurredAt: row.occurredAt,
      snippet: row.snippet.replace(/\s+/g, ' ').trim(),
      score: row.score,
      cursor: encodeCursor({ score: row.score, rowid: row.rowid }),
      event: eventFromRow(row),
    })),
    nextCursor: rows.length > limit && last ? encodeCursor({ score: last.score, rowid: last.rowid }) : null,
  };
}
