// The events ledger's public face: append (idempotent, batched), get, list/range, verify and
// checkpoints, search. Everything goes through a LedgerStore, which it may share with the agents
// ledger (the agents ledger owns the link from turns to the events they cite: turnsCiting is there).

import { generateId as defaultGenerateId, type IdGenerator, type LedgerEvent } from '@agent-ledger/core';
import { type LedgerStore, openLedgerStore } from '@agent-ledger/store';
import { type AppendedEvent, appendEvents } from './append-events.ts';
import { checkAgainstCheckpoint, type EventsCheckpoint, takeCheckpoint } from './checkpoint.ts';
import type { EventsContext } from './events-context.ts';
import { type EventPage, getEvent, listEvents, type RangeOptions, rangeEvents } from './read-events.ts';
import { type EventSearchOptions, type EventSearchResult, searchEvents } from './search-events.ts';
import type { AppendEventInput } from './validate-event.ts';
import { type VerifyResult, verifyChains } from './verify-chain.ts';

export interface EventsLedgerOptions {
  store: LedgerStore;
  now?: () => number;
  generateId?: IdGenerator;
}

export interface EventsLedger {
  readonly store: LedgerStore;
  /** Appends one event; a re-delivered (channel, externalId) returns the stored one. */
  append(input: AppendEventInput): Promise<AppendedEvent>;
  /** Appends a batch in one store operation: all of it, or none (a bad item refuses the batch). */
  appendBatch(inputs: readonly AppendEventInput[]): Promise<AppendedEvent[]>;
  get(eventId: string): Promise<LedgerEvent>;
  list(options: RangeOptions & { afterSeq?: number }): Promise<EventPage>;
  range(options: RangeOptions): AsyncGenerator<LedgerEvent>;
  /**
   * Walks the hash chains (each event's hash, its link to the one before, gapless seq). With a
   * checkpoint, also fails when a channel is now shorter than it or holds another event at its seq:
   * the one thing a chain alone cannot show is events removed from its end.
   */
  verify(options?: { channel?: string; checkpoint?: EventsCheckpoint }): Promise<VerifyResult>;
  /** Each channel's newest seq and hash, to keep somewhere else and verify against later. */
  checkpoint(options?: { channel?: string }): Promise<EventsCheckpoint>;
  /** Null when the event search index agrees with the events; otherwise what the store reported. */
  checkSearchIndex(): Promise<string | null>;
  /** Full-text search over events, ranked by bm25. */
  search(query: string, options?: EventSearchOptions): Promise<EventSearchResult>;
  /** Closes the store (a store shared with the agents ledger is closed for both). */
  close(): Promise<void>;
}

export function createEventsLedger(options: EventsLedgerOptions): EventsLedger {
  const { store } = options;
  const context: EventsContext = {
    store,
    now: options.now ?? Date.now,
    generateId: options.generateId ?? defaultGenerateId,
  };
  // Stores already turn driver errors into LedgerErrors; this makes a synchronous throw before
  // the first await (bad input) a rejection like every other failure.
  const guard = async <T>(work: () => Promise<T> | T): Promise<T> => work();
  return {
    store,
    append: (input) => guard(async () => (await appendEvents(context, [input]))[0] as AppendedEvent),
    appendBatch: (inputs) => guard(() => appendEvents(context, inputs)),
    get: (eventId) => guard(() => getEvent(store, eventId)),
    list: (listOptions) => guard(() => listEvents(store, listOptions)),
    range: (rangeOptions) => rangeEvents(store, rangeOptions),
    verify: (verifyOptions) =>
      guard(async () => {
        const result = await verifyChains(store, verifyOptions);
        if (!verifyOptions?.checkpoint) return result;
        const problems = await checkAgainstCheckpoint(store, verifyOptions.checkpoint);
        return { ...result, ok: result.ok && problems.length === 0, checkpointProblems: problems };
      }),
    checkpoint: (checkpointOptions) => guard(() => takeCheckpoint(store, context.now(), checkpointOptions?.channel)),
    checkSearchIndex: () => guard(() => store.checkEventSearchIndex()),
    search: (query, searchOptions) => guard(() => searchEvents(context, query, searchOptions)),
    close: () => store.close(),
  };
}

/** Opens the events ledger at `location` (a SQLite file path), with migrations applied unless read-only. */
export function openEventsLedger(
  location: string,
  options: Omit<EventsLedgerOptions, 'store'> & { readonly?: boolean; mustExist?: boolean } = {},
): EventsLedger {
  const { readonly, mustExist, ...ledgerOptions } = options;
  return createEventsLedger({ ...ledgerOptions, store: openLedgerStore(location, { readonly, mustExist }) });
}
