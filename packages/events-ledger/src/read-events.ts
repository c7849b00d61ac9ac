// Reading events: one by id, a channel's events by sequence or time in pages, and the turns that
// cite an event. Ranges stream page by page, so a channel of millions never sits in memory.

import { EventNotFoundError, InvalidInputError, type LedgerEvent } from '@nexus/core';
import { events, type LedgerDatabase, turnEvents } from '@nexus/db';
import { and, asc, eq, gt, gte, lte, type SQL } from 'drizzle-orm';
import { eventFromRow } from './event-mapping.ts';

export function getEvent(database: LedgerDatabase, eventId: string): LedgerEvent {
  const row = database.db.select().from(events).where(eq(events.id, eventId)).get();
  if (!row) throw new EventNotFoundError(eventId);
  return eventFromRow(row);
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
export function listEvents(database: LedgerDatabase, options: RangeOptions & { afterSeq?: number }): EventPage {
  const limit = checkedLimit(options.limit ?? 100);
  const rows = database.db
    .select()
    .from(events)
    .where(and(...conditions(options), gt(events.seq, options.afterSeq ?? 0)))
    .orderBy(asc(events.seq))
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit).map(eventFromRow);
  return { events: page, nextCursor: rows.length > limit ? (page.at(-1)?.seq ?? null) : null };
}

/** Every event of the range, oldest first, read a page at a time. */
export async function* rangeEvents(database: LedgerDatabase, options: RangeOptions): AsyncGenerator<LedgerEvent> {
  const pageSize = checkedLimit(options.pageSize ?? 1000);
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  let afterSeq = (options.fromSeq ?? 1) - 1;
  while (remaining > 0) {
    const page = listEvents(database, { ...options, afterSeq, limit: Math.min(pageSize, remaining) });
    for (const event of page.events) yield event;
    remaining -= page.events.length;
    if (page.nextCursor === null || page.events.length === 0) return;
    afterSeq = page.nextCursor;
  }
}

/** The turns that cite an event, oldest link first. */
export function turnsCiting(database: LedgerDatabase, eventId: string): string[] {
  getEvent(database, eventId);
  return database.db
    .select({ turnId: turnEvents.turnId })
    .from(turnEvents)
    .where(eq(turnEvents.eventId, eventId))
    .all()
    .map((row) => row.turnId);
}

function conditions(options: RangeOptions): SQL[] {
  const list: SQL[] = [eq(events.channel, options.channel)];
  if (options.fromSeq !== undefined) list.push(gte(events.seq, options.fromSeq));
  if (options.toSeq !== undefined) list.push(lte(events.seq, options.toSeq));
  if (options.since !== undefined) list.push(gte(events.occurredAt, options.since));
  if (options.until !== undefined) list.push(lte(events.occurredAt, options.until));
  return list;
}

function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1)
    throw new InvalidInputError(`limit must be a positive whole number, got ${limit}.`, 'limit');
  return limit;
}
