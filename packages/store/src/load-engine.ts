// Loads the package of the engine a location names. Engines are optional peers of this package:
// whichever one the application installed is found beside it. A missing one is the user's to
// install, so it gets an error that says which package, not a raw ERR_MODULE_NOT_FOUND.

import type { LedgerStore } from './ledger-store.ts';
import type { OpenLedgerStoreOptions } from './open-options.ts';
import { StoreEngineMissingError } from './store-errors.ts';

/** What the SQLite engine's package exports that this loader uses. */
export interface SqliteEngineModule {
  openSqliteStore(options: { path: string } & Omit<OpenLedgerStoreOptions, 'poolSize'>): LedgerStore;
}

/** What the PostgreSQL engine's package exports that this loader uses. */
export interface PostgresEngineModule {
  openPostgresStore(url: string, options: { readonly?: boolean; mustExist?: boolean; poolSize?: number }): LedgerStore;
}

interface EngineModules {
  sqlite: SqliteEngineModule;
  postgres: PostgresEngineModule;
}

export const ENGINE_PACKAGES = {
  sqlite: '@agent-ledger/store-sqlite',
  postgres: '@agent-ledger/store-postgres',
} as const;

// The specifiers are literals, so a bundler (the CLI's, an application's) carries the engines along.
// This package's build cannot see their types (each engine package depends on this one, so it is
// built after it): the shape is checked at run time below instead.
const IMPORTERS: { [Engine in keyof EngineModules]: () => Promise<unknown> } = {
  // biome-ignore lint/suspicious/noTsIgnore: the engines' types do not exist when this package builds (see above).
  // @ts-ignore
  sqlite: () => import('@agent-ledger/store-sqlite'),
  // biome-ignore lint/suspicious/noTsIgnore: the engines' types do not exist when this package builds (see above).
  // @ts-ignore
  postgres: () => import('@agent-ledger/store-postgres'),
};

const ENTRY_POINTS: { [Engine in keyof EngineModules]: string } = {
  sqlite: 'openSqliteStore',
  postgres: 'openPostgresStore',
};

export async function loadEngine<Engine extends keyof EngineModules>(
  engine: Engine,
  /** The ledger's location as it may be shown (a URL without its password). */
  location: string,
): Promise<EngineModules[Engine]> {
  const packageName = ENGINE_PACKAGES[engine];
  let loaded: unknown;
  try {
    loaded = await IMPORTERS[engine]();
  } catch (error) {
    if (isMissingPackage(error, packageName)) throw new StoreEngineMissingError(engine, packageName, location);
    throw error;
  }
  const entry = (loaded as Record<string, unknown> | null)?.[ENTRY_POINTS[engine]];
  if (typeof entry !== 'function')
    throw new StoreEngineMissingError(engine, packageName, location, `${packageName} has no ${ENTRY_POINTS[engine]} export`);
  return loaded as EngineModules[Engine];
}

function isMissingPackage(error: unknown, packageName: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(`'${packageName}'`)
  );
}
