// Opens (or creates) a ledger database file and brings its schema up to date. Every process that
// touches the ledger goes through here, so the pragmas that make concurrent use safe are set once.

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseNotFoundError, StorageError } from '@agent-ledger/core';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { OpenSqliteStoreOptions } from './open-options.ts';
import * as schema from './schema.ts';

export type LedgerDrizzle = BetterSQLite3Database<typeof schema>;

export type OpenDatabaseOptions = OpenSqliteStoreOptions;

export interface LedgerDatabase {
  readonly path: string;
  readonly db: LedgerDrizzle;
  /** The driver handle, for the few statements drizzle cannot express (recursive CTEs, pragmas). */
  readonly sqlite: Database.Database;
  /** Runs `work` in one IMMEDIATE transaction: all of it is written, or none of it. */
  transaction<T>(work: (db: LedgerDrizzle) => T): T;
  close(): void;
}

/**
 * Refuses a path that is not a ledger already: missing, a directory, an empty file, not SQLite, or
 * a SQLite database of something else. A reader must not answer "ok" from the wrong file, nor
 * write the ledger's tables into someone else's database by migrating it.
 */
function requireLedgerFile(file: string): void {
  const absolute = path.resolve(file);
  if (!existsSync(file)) throw new DatabaseNotFoundError(absolute);
  const stats = statSync(file);
  if (stats.isDirectory()) throw new DatabaseNotFoundError(absolute, 'It is a directory: give the ledger file inside it.');
  if (stats.size === 0) throw new DatabaseNotFoundError(absolute, 'It is an empty file, not a ledger.');
  let probe: Database.Database | null = null;
  try {
    probe = new Database(file, { readonly: true, fileMustExist: true });
    const table = probe.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'agent_sessions'").get();
    if (!table)
      throw new DatabaseNotFoundError(
        absolute,
        'It is a SQLite database, but not a nexus ledger (it has no agent_sessions table).',
      );
  } catch (error) {
    if (DatabaseNotFoundError.isInstance(error)) throw error;
    const hint = nativeModuleHint(error);
    if (hint) throw new StorageError(`Cannot open the ledger database at ${file}: ${(error as Error).message}${hint}`);
    throw new DatabaseNotFoundError(absolute, `It is not a SQLite database (${(error as Error).message}).`);
  } finally {
    probe?.close();
  }
}

/**
 * better-sqlite3 is a native module built by its install script. npm 12 runs no dependency's
 * install script unless allowed, so the module can be installed without its binary: say how to fix it.
 */
function nativeModuleHint(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!/bindings file|better_sqlite3\.node|NODE_MODULE_VERSION|invalid ELF header/.test(message)) return '';
  return (
    " (better-sqlite3's native module is missing or was built for another Node.js. Its install script builds it, and " +
    'npm 12 runs install scripts only when allowed: reinstall with `npm install -g --allow-scripts=better-sqlite3 agent-ledger` ' +
    '(or in a project, `npm install --allow-scripts=better-sqlite3`), or run `npm rebuild better-sqlite3` where it is installed.)'
  );
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle-sqlite', import.meta.url));

/**
 * Brings the schema up to date when other processes may be opening the same new file at once (hooks
 * run in parallel). drizzle reads which migrations are applied before its transaction begins, so
 * two processes can both start the same one: the loser waits on the winner's write lock (busy
 * timeout), then fails on a table that now exists, and its transaction rolls back whole. Running
 * the migrator again then finds them applied and does nothing; a migration that is itself broken
 * fails the same way every time and is thrown.
 */
function migrateAlongsideOthers(db: Parameters<typeof migrate>[0], attempts = 3): void {
  for (let attempt = 1; ; attempt += 1) {
    try {
      migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
  }
}

export function openDatabase(options: OpenDatabaseOptions): LedgerDatabase {
  const inMemory = options.path === ':memory:' || options.path === '';
  if ((options.mustExist || options.readonly) && !inMemory) requireLedgerFile(options.path);
  let sqlite: Database.Database;
  try {
    sqlite = new Database(options.path, { readonly: options.readonly ?? false });
  } catch (error) {
    throw new StorageError(
      `Cannot open the ledger database at ${options.path}: ${(error as Error).message}${nativeModuleHint(error)}`,
      { cause: error },
    );
  }
  try {
    // WAL lets readers run beside one writer; NORMAL sync is durable across process crashes (a
    // power loss may drop the last transactions, never corrupt the file).
    if (!options.readonly) sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    sqlite.pragma('foreign_keys = ON');
    // REPLACE conflict resolution then fires DELETE triggers, so it cannot slip past them.
    sqlite.pragma('recursive_triggers = ON');
    const db = drizzle({ client: sqlite, schema });
    if (!options.readonly) migrateAlongsideOthers(db);
    return {
      path: options.path,
      db,
      sqlite,
      transaction: (work) => db.transaction((tx) => work(tx as unknown as LedgerDrizzle), { behavior: 'immediate' }),
      close: () => sqlite.close(),
    };
  } catch (error) {
    sqlite.close();
    if (StorageError.isInstance(error)) throw error;
    throw new StorageError(`Cannot prepare the ledger database at ${options.path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
