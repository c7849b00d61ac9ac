// Errors and checks every engine shares: what a retryable lock failure is, and what a sealed event
// must continue. Engine-neutral, so neither engine reaches into the other's folder.

import { LedgerError, StorageError } from '@agent-ledger/core';
import type { EventRecord, EventTail } from './event-store.ts';

/** Another writer held the database past the engine's wait (a lock timeout, a deadlock): retry. */
export class DatabaseBusyError extends StorageError {
  static override readonly marker: string = 'agent-ledger.DatabaseBusyError';
  override readonly code = 'DATABASE_BUSY';
  override readonly isRetryable = true;
}

/** Refuses a record `seal` made that does not carry the event's key or does not continue the tail. */
export function checkSealed(record: EventRecord, channel: string, externalId: string, tail: EventTail | null): void {
  if (record.channel !== channel || record.externalId !== externalId)
    throw new StorageError(`appendEvents: the record sealed for (${channel}, ${externalId}) carries another key.`);
  if (record.seq !== (tail?.seq ?? 0) + 1 || record.prevHash !== (tail?.hash ?? null))
    throw new StorageError(
      `appendEvents: the record sealed for ${channel} has seq ${record.seq} and prevHash ${record.prevHash}, ` +
        `but the channel's tail is seq ${tail?.seq ?? 0} with hash ${tail?.hash ?? null}.`,
    );
}

/**
 * A location names an engine whose package is not installed (each engine is a package of its own,
 * so an application installs only the one it uses).
 */
export class StoreEngineMissingError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.StoreEngineMissingError';
  constructor(
    readonly engine: 'sqlite' | 'postgres',
    readonly packageName: string,
    readonly location: string,
    detail?: string,
  ) {
    super(
      'STORE_ENGINE_MISSING',
      `The ledger at ${location} needs the ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} engine, ` +
        `which is not installed${detail ? ` (${detail})` : ''}: install it with \`npm install ${packageName}\`.`,
    );
  }
}
