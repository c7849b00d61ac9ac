// The events ledger's public face: append (idempotent, batched), get, list/range, verify, and the
// turns that cite an event. Shares the database file with the agents ledger.

import { generateId as defaultGenerateId, type IdGenerator, type LedgerEvent } from '@nexus/core';
import { fromDriverError, type LedgerDatabase, openDatabase } from '@nexus/db';
import { type AppendedEvent, appendEvents } from './append-events.ts';
import { checkAgainstCheckpoint, type EventsCheckpoint, takeCheckpoint } from './checkpoint.ts';
import { type EventPage, getEvent, listEvents, type RangeOptions, rangeEvents, turnsCiting } from './read-events.ts';
import { type EventSearchOptions, type EventSearchResult, searchEvents } from './search-events.ts';
import type { AppendEventInput } from './validate-event.ts';
import { type VerifyResult, verifyChains } from './verify-chain.ts';

export interface EventsLedgerOptions {
  database: LedgerDatabase;
  now?: () => number;
  generateId?: IdGenerator;
}

export interface EventsLedger {
  readonly database: LedgerDatabase;
  /** Appends one event; a re-delivered (channel, externalId) returns the stored one. */
  append(input: AppendEventInput): Promise<AppendedEvent>;
  /** Appends a batch in one transaction: all of it, or none (a bad item refuses the batch). */
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
  turnsCiting(eventId: string): Promise<string[]>;
  /** Null when the event search index agrees with the events; otherwise what SQLite reported. */
  checkSearchIndex(): Promise<string | null>;
  /** Full-text search over events, ranked by bm25. */
  search(query: string, options?: EventSearchOptions): Promise<EventSearchResult>;
  close(): void;
}

export function createEventsLedger(options: EventsLedgerOptions): EventsLedger {
  const context = {
    database: options.database,
    now: options.now ?? Date.now,
    generateId: options.generateId ?? defaultGenerateId,
  };
  const guard = async <T>(work: () => T): Promise<T> => {
    try {
      return work();
    } catch (error) {
      throw fromDriverError(error);
    }
  };
  return {
    database: options.database,
    append: (input) => guard(() => appendEvents(context, [input])[0] as AppendedEvent),
    appendBatch: (inputs) => guard(() => appendEvents(context, inputs)),
    get: (eventId) => guard(() => getEvent(options.database, eventId)),
    list: (listOptions) => guard(() => listEvents(options.database, listOptions)),
    range: (rangeOptions) => rangeEvents(options.database, rangeOptions),
    verify: (verifyOptions) =>
      guard(() => {
        const result = verifyChains(options.database, verifyOptions);
        if (!verifyOptions?.checkpoint) return result;
        const problems = checkAgainstCheckpoint(options.database, verifyOptions.checkpoint);
        return { ...result, ok: result.ok && problems.length === 0, checkpointProblems: problems };
      }),
    checkpoint: (checkpointOptions) => guard(() => takeCheckpoint(options.database, context.now(), checkpointOptions?.channel)),
    turnsCiting: (eventId) => guard(() => turnsCiting(options.database, eventId)),
    checkSearchIndex: async () => {
      try {
        options.database.sqlite.prepare("INSERT INTO events_fts (events_fts, rank) VALUES ('integrity-check', 1)").run();
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    },
    search: async (query, searchOptions) => searchEvents(options.database, query, searchOptions),
    close: () => options.database.close(),
  };
}

export function openEventsLedger(
  path: string,
  options: Omit<EventsLedgerOptions, 'database'> & { readonly?: boolean; mustExist?: boolean } = {},
): EventsLedger {
  const { readonly, mustExist, ...ledgerOptions } = options;
  return createEventsLedger({ ...ledgerOptions, database: openDatabase({ path, readonly, mustExist }) });
}
