// Full-text search over events (author and every string of the payload), ranked by the store's
// relevance (bm25 on SQLite), with snippets. Events are never compacted, so there is only the raw view.

import { InvalidInputError, type LedgerEvent, requireSearchText, searchTerms } from '@agent-ledger/core';
import { eventFromRow } from './event-mapping.ts';
import type { EventsContext } from './events-context.ts';

export interface EventSearchOptions {
  channel?: string;
  author?: string;
  kind?: string;
  /** occurredAt bounds, inclusive, ms since the epoch. */
  since?: number;
  until?: number;
  limit?: number;
  cursor?: string;
  /** The query is the store engine's own syntax (SQLite: FTS5); syntax it refuses is SearchSyntaxError. */
  advanced?: boolean;
}

export interface EventHit {
  eventId: string;
  channel: string;
  seq: number;
  author: string | null;
  occurredAt: number;
  snippet: string;
  /** Relevance, LOWER is better: the store's score negated (on SQLite, FTS5's bm25 as is). */
  score: number;
  /** Continues the search right after this hit (to page through several ranked lists at once). */
  cursor: string;
  event: LedgerEvent;
}

export interface EventSearchResult {
  hits: EventHit[];
  nextCursor: string | null;
}

export async function searchEvents(
  context: EventsContext,
  query: string,
  options: EventSearchOptions = {},
): Promise<EventSearchResult> {
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new InvalidInputError('limit must be 1 to 200.', 'limit');
  const text = requireSearchText(query);
  // Every term first; any term only when nothing matches every term (the same choice on every page).
  const page = await context.store.searchEvents({
    match: options.advanced ? { advanced: text } : { words: searchTerms(text), mode: 'all-then-any' },
    filters: {
      channel: options.channel,
      author: options.author,
      kind: options.kind,
      since: options.since,
      until: options.until,
    },
    limit,
    cursor: options.cursor,
  });
  return {
    hits: page.hits.map((hit) => ({
      eventId: hit.event.id,
      channel: hit.event.channel,
      seq: hit.event.seq,
      author: hit.event.author,
      occurredAt: hit.event.occurredAt,
      snippet: hit.snippet.replace(/\s+/g, ' ').trim(),
      score: -hit.score,
      cursor: hit.cursor,
      event: eventFromRow(hit.event),
    })),
    nextCursor: page.nextCursor,
  };
}
