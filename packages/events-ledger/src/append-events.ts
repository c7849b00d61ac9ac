// Appending events. Every input is checked and encoded first, with no I/O; then the store does the
// whole batch as one operation: the re-delivery lookups, each channel's tail, and the inserts, all
// of it written or none. The store calls back here to seal each new event on its channel's tail
// (id, seq, prevHash, hash): pure work, done while the channel is held, so two appenders never
// continue the same tail. Re-delivery of a (channel, externalId) already stored returns the stored
// event and writes nothing.

import type { LedgerEvent } from '@agent-ledger/core';
import type { EventRecord, EventTail } from '@agent-ledger/store';
import { eventHash } from './event-hash.ts';
import { eventFromRow } from './event-mapping.ts';
import type { EventsContext } from './events-context.ts';
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

export async function appendEvents(context: EventsContext, inputs: readonly unknown[]): Promise<AppendedEvent[]> {
  // Every input is checked before anything is written: one bad event refuses the whole call.
  const validated = inputs.map(validateEventInput);
  // The clock is read once per call, when the first new event is sealed (inside the write, so
  // receivedAt follows the order the events are stored in); a batch is received at one moment.
  let receivedAt: number | undefined;
  // The payload as a value, parsed once while sealing: the search text and the returned event use it.
  const parsed: unknown[] = new Array(validated.length);
  const appended = await context.store.appendEvents({
    events: validated,
    seal: (index, tail) => {
      receivedAt ??= context.now();
      const input = validated[index] as ValidatedEvent;
      const payload: unknown = JSON.parse(input.payload);
      parsed[index] = payload;
      return sealed(context, { input, payload, receivedAt, tail });
    },
  });
  return appended.map(({ record, duplicate }, index) => {
    if (duplicate) {
      const input = validated[index] as ValidatedEvent;
      return { event: eventFromRow(record), duplicate: true, conflict: conflictWith(record, input) };
    }
    return { event: eventOf(record, parsed[index]), duplicate: false, conflict: null };
  });
}

/** What a re-delivery says differently from the stored event; occurredAt only when it gave one. */
function conflictWith(stored: EventRecord, input: ValidatedEvent): EventConflict | null {
  const fields: string[] = [];
  if (stored.author !== input.author) fields.push('author');
  if (stored.kind !== input.kind) fields.push('kind');
  if (stored.payload !== input.payload) fields.push('payload');
  if (input.occurredAt !== null && stored.occurredAt !== input.occurredAt) fields.push('occurredAt');
  return fields.length > 0 ? { fields } : null;
}

/** A checked event about to be stored, with its parsed payload and the channel tail it continues. */
interface Unsealed {
  input: ValidatedEvent;
  payload: unknown;
  receivedAt: number;
  tail: EventTail | null;
}

/** The stored form of a new event continuing `tail`. */
function sealed(context: EventsContext, { input, payload, receivedAt, tail }: Unsealed): EventRecord {
  const record: EventRecord = {
    id: context.generateId('event'),
    channel: input.channel,
    externalId: input.externalId,
    author: input.author,
    kind: input.kind,
    payload: input.payload,
    occurredAt: input.occurredAt ?? receivedAt,
    receivedAt,
    seq: (tail?.seq ?? 0) + 1,
    prevHash: tail?.hash ?? null,
    hash: '',
    // Derived for full-text search and deliberately outside the hash.
    searchText: searchTextOf(input.author, payload),
  };
  record.hash = eventHash(record);
  return record;
}

/** A new event as returned: its payload is the value its canonical text was parsed into when sealed. */
function eventOf(record: EventRecord, payload: unknown): LedgerEvent {
  return {
    id: record.id,
    channel: record.channel,
    externalId: record.externalId,
    author: record.author,
    kind: record.kind,
    payload,
    occurredAt: record.occurredAt,
    receivedAt: record.receivedAt,
    seq: record.seq,
    prevHash: record.prevHash,
    hash: record.hash,
  };
}

/** The author and every string in the payload, which is what a person would search an event for. */
export function searchTextOf(author: string | null, payload: unknown): string {
  const strings: string[] = author ? [author] : [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) collect(item);
  };
  collect(payload);
  // NFKC here and on queries, so compatibility forms (ＡＢＣ, ﬁ, ²) are found by plain text.
  return strings.join('\n').normalize('NFKC');
}
