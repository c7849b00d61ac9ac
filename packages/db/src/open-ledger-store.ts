// Opening a ledger by where it lives: a file path is SQLite (the embedded default). Every entry
// point (openAgentsLedger, openEventsLedger, the CLI's --db) comes through here, so a second engine
// is one more branch, not a change in every caller.

import { InvalidInputError } from '@nexus/core';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { LedgerStore } from './store/ledger-store.ts';

export interface OpenLedgerStoreOptions {
  /** Open without writing anything (no migrations); the ledger must exist. */
  readonly?: boolean;
  /** Refuse with DatabaseNotFoundError when there is no ledger there yet, rather than create one. */
  mustExist?: boolean;
  /** How long a writer waits for another process's lock before failing, in ms. */
  busyTimeoutMs?: number;
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export function openLedgerStore(location: string, options: OpenLedgerStoreOptions = {}): LedgerStore {
  const scheme = URL_SCHEME.exec(location)?.[0];
  if (scheme && scheme.toLowerCase() !== 'file://') {
    throw new InvalidInputError(
      `${scheme}… is not a ledger location this version opens: give the path of a SQLite file (PostgreSQL support comes with issue 15).`,
      'db',
    );
  }
  const path = scheme ? decodeURIComponent(location.slice('file://'.length)) : location;
  return openSqliteStore({ path, ...options });
}
