// Opening a ledger by where it lives: a `postgres://` (or `postgresql://`) URL is PostgreSQL, a file
// path (or `file://` URL) is SQLite, the embedded default. Every entry point (openAgentsLedger,
// openEventsLedger, the CLI's --db and NEXUS_DB) comes through here.
//
// Each engine is a package of its own (@agent-ledger/store-sqlite, @agent-ledger/store-postgres),
// so a SQLite user never installs `pg` and a PostgreSQL user never compiles better-sqlite3. This
// module loads the one a location names when the store is first used (load-engine.ts); a missing
// engine package is an error that names the package to install.

import { InvalidInputError } from '@agent-ledger/core';
import { deferredStore } from './deferred-store.ts';
import type { LedgerStore } from './ledger-store.ts';
import { loadEngine } from './load-engine.ts';
import type { OpenLedgerStoreOptions } from './open-options.ts';

export type { OpenLedgerStoreOptions } from './open-options.ts';

/** True for a location PostgreSQL opens. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The store at `location`. It is returned at once; the engine's package is loaded and the ledger
 * opened on the first operation, which rejects (DatabaseNotFoundError, StoreEngineMissingError, …)
 * when that fails. Open an engine directly (`openSqliteStore`) to have it open eagerly.
 */
export function openLedgerStore(location: string, options: OpenLedgerStoreOptions = {}): LedgerStore {
  const readonly = options.readonly ?? false;
  if (isPostgresLocation(location)) {
    const {
      busyTimeoutMs: _timeout,
      inspect: _inspect,
      upgrade: _upgrade,
      checkIntegrity: _integrity,
      ...postgresOptions
    } = options;
    return deferredStore({
      engine: 'postgres',
      location: displayLocation(location),
      readonly,
      open: async () => (await loadEngine('postgres', displayLocation(location))).openPostgresStore(location, postgresOptions),
    });
  }
  const scheme = URL_SCHEME.exec(location)?.[0];
  if (scheme && scheme.toLowerCase() !== 'file://') {
    throw new InvalidInputError(
      `${scheme}… is not a ledger location: give the path of a SQLite file, or a postgres:// URL.`,
      'db',
    );
  }
  const path = scheme ? decodeURIComponent(location.slice('file://'.length)) : location;
  const { poolSize: _postgresOnly, ...sqliteOptions } = options;
  return deferredStore({
    engine: 'sqlite',
    location: path,
    readonly,
    open: async () => (await loadEngine('sqlite', path)).openSqliteStore({ path, ...sqliteOptions }),
  });
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
