// Appending events. One IMMEDIATE transaction per call, so a batch is all written or none of it,
// and two processes appending to one channel take turns: seq stays gapless and the chain intact.
// Re-delivery of a (channel, externalId) already stored returns the stored event and writes nothing.

import type { IdGenerator, LedgerEvent } from '@nexus/core';
import { type EventRow, eventStatements, type LedgerDatabase } from '@nexus/db';
import { eventHash } from './event-hash.ts';
import { eventFromRow } from './event-mapping.ts';
import { type ValidatedEvent, validateEventInput } from './validate-event.ts';

export interface AppendedEvent {
  event: LedgerEvent;
  /** True when the (channel, externalId) was already stored: nothing was written for it. */
  duplicate: boolean;
  /**
   * For a re-delivery whose content differs from the stored event (an edited message, a reused
   * id): the fields that differ. The stored event stays as it was; null when they agree.
   */
  conflict: EventConflict | null;
}

export interface EventConflict {
  /** Which of author, kind, payload, occurredAt differ between the re-delivery and the stored event. */
  fields: string[];
}

export interface AppendContext {
  database: LedgerDatabase;
  now: () => number;
  generateId: IdGenerator;
}

export function appendEvents(context: AppendContext, inputs: readonly unknown[]): AppendedEvent[] {
  // Every input is checked before the transaction opens: one bad event refuses the whole call.
  const validated = inputs.map(validateEventInput);
  const statements = eventStatements(context.database);
  return context.database.transaction(() => {
    const receivedAt = context.now();
    const heads = new Map<string, { seq: number; hash: string } | null>();
    return validated.map((input) => {
      const stored = statements.findByExternalId(input.channel, input.externalId);
      if (stored) return { event: eventFromRow(stored), duplicate: true, conflict: conflictWith(stored, input) };
      const row = nextRow(context, input, receivedAt, channelHead(heads, input.channel, statements));
      statements.insertEvent(row);
      heads.set(input.channel, { seq: row.seq, hash: row.hash });
      return { event: eventFromRow(row), duplicate: false, conflict: null };
    });
  });
}

/** What a re-delivery says differently from the stored event; occurredAt only when it gave one. */
function conflictWith(stored: EventRow, input: ValidatedEvent): EventConflict | null {
  const fields: string[] = [];
  if (stored.author !== input.author) fields.push('author');
  if (stored.kind !== input.kind) fields.push('kind');
  if (stored.payload !== input.payload) fields.push('payload');
  if (input.occurredAt !== null && stored.occurredAt !== input.occurredAt) fields.push('occurredAt');
  return fields.length > 0 ? { fields } : null;
}

function channelHead(
  heads: Map<string, { seq: number; hash: string } | null>,
  channel: string,
  statements: ReturnType<typeof eventStatements>,
): { seq: number; hash: string } | null {
  if (!heads.has(channel)) heads.set(channel, statements.lastOfChannel(channel) ?? null);
  return heads.get(channel) ?? null;
}

function nextRow(
  context: AppendContext,
  input: ValidatedEvent,
  receivedAt: number,
  head: { seq: number; hash: string } | null,
): EventRow {
  const fields = {
    id: context.generateId('event'),
    channel: input.channel,
    externalId: input.externalId,
    author: input.author,
    kind: input.kind,
    payload: input.payload,
    occurredAt: input.occurredAt ?? receivedAt,
    receivedAt,
    seq: (head?.seq ?? 0) + 1,
    prevHash: head?.hash ?? null,
  };
  // search_text is derived for full-text search and deliberately outside the hash.
  return { ...fields, hash: eventHash(fields), searchText: searchTextOf(input) };
}

/** The author and every string in the payload, which is what a person would search an event for. */
function searchTextOf(input: ValidatedEvent): string {
  const strings: string[] = input.author ? [input.author] : [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) collect(item);
  };
  collect(JSON.parse(input.payload));
  // NFKC here and on queries, so compatibility forms (ＡＢＣ, ﬁ, ²) are found by plain text.
  return strings.join('\n').normalize('NFKC');
}
