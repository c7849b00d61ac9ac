// Opening a ledger by where it lives: a `postgres://` (or `postgresql://`) URL is PostgreSQL, a file
// path (or `file://` URL) is SQLite, the embedded default. Every entry point (openAgentsLedger,
// openEventsLedger, the CLI's --db and NEXUS_DB) comes through here.

import { InvalidInputError } from '@nexus/core';
import { openPostgresStore } from './postgres/postgres-store.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { LedgerStore } from './store/ledger-store.ts';

export interface OpenLedgerStoreOptions {
  /** Open without writing anything (no migrations); the ledger must exist. */
  readonly?: boolean;
  /** Refuse with DatabaseNotFoundError when there is no ledger there yet, rather than create one. */
  mustExist?: boolean;
  /** SQLite: how long a writer waits for another process's lock before failing, in ms. */
  busyTimeoutMs?: number;
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number;
}

/** True for a location PostgreSQL opens. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export function openLedgerStore(location: string, options: OpenLedgerStoreOptions = {}): LedgerStore {
  if (isPostgresLocation(location))
    return openPostgresStore(location, { readonly: options.readonly, mustExist: options.mustExist, poolSize: options.poolSize });
  const scheme = URL_SCHEME.exec(location)?.[0];
  if (scheme && scheme.toLowerCase() !== 'file://') {
    throw new InvalidInputError(
      `${scheme}… is not a ledger location: give the path of a SQLite file, or a postgres:// URL.`,
      'db',
    );
  }
  const path = scheme ? decodeURIComponent(location.slice('file://'.length)) : location;
  const { poolSize: _poolSize, ...sqliteOptions } = options;
  return openSqliteStore({ path, ...sqliteOptions });
}

/**
 * A ledger location as it may be shown to a person: a URL's password is replaced by `***`
 * (messages, hints and startup lines print this, never the location as given).
 */
export function displayLocation(location: string): string {
  if (!URL_SCHEME.test(location)) return location;
  try {
    const parsed = new URL(location);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return location.replace(/\/\/[^@/]*@/, '//***@');
  }
}
