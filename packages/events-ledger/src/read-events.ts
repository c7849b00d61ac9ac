// Reading events: one by id, and a channel's events by sequence or time in pages. Ranges stream
// page by page, so a channel of millions never sits in memory.

import { EventNotFoundError, InvalidInputError, type LedgerEvent } from '@agent-ledger/core';
import type { StoreOperations } from '@agent-ledger/store';
import { eventFromRow } from './event-mapping.ts';

export async function getEvent(store: StoreOperations, eventId: string): Promise<LedgerEvent> {
  const record = await store.getEvent(eventId);
  if (!record) throw new EventNotFoundError(eventId);
  return eventFromRow(record);
}

export interface RangeOptions {
  channel: string;
  /** First and last sequence number, inclusive. */
  fromSeq?: number;
  toSeq?: number;
  /** occurredAt bounds, inclusive, ms since the epoch. */
  since?: number;
  until?: number;
  /** Stop after this many events. */
  limit?: number;
  pageSize?: number;
}

export interface EventPage {
  events: LedgerEvent[];
  /** Pass as `afterSeq` for the next page; null at the end. */
  nextCursor: number | null;
}

/** One page of a channel, after a cursor (the last seq of the previous page). */
export async function listEvents(store: StoreOperations, options: RangeOptions & { afterSeq?: number }): Promise<EventPage> {
  const limit = checkedLimit(options.limit ?? 100);
  const records = await store.eventPage({
    channel: options.channel,
    afterSeq: options.afterSeq,
    fromSeq: options.fromSeq,
    toSeq: options.toSeq,
    since: options.since,
    until: options.until,
    limit: limit + 1,
  });
  const page = records.slice(0, limit).map(eventFromRow);
  return { events: page, nextCursor: records.length > limit ? (page.at(-1)?.seq ?? null) : null };
}

/** Every event of the range, oldest first, read a page at a time. */
export async function* rangeEvents(store: StoreOperations, options: RangeOptions): AsyncGenerator<LedgerEvent> {
  const pageSize = checkedLimit(options.pageSize ?? 1000);
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  let afterSeq = (options.fromSeq ?? 1) - 1;
  while (remaining > 0) {
    const page = await listEvents(store, { ...options, afterSeq, limit: Math.min(pageSize, remaining) });
    for (const event of page.events) yield event;
    remaining -= page.events.length;
    if (page.nextCursor === null || page.events.length === 0) return;
    afterSeq = page.nextCursor;
  }
}

function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1)
    throw new InvalidInputError(`limit must be a positive whole number, got ${limit}.`, 'limit');
  return limit;
}
