// Opens (or creates) a ledger database file and brings its schema up to date. Every process that
// touches the ledger goes through here, so the pragmas that make concurrent use safe are set once,
// and so is the rule that nothing is written to a file that is not a healthy ledger: the file is
// looked at first (ledger-file.ts, from the file system alone), then through a connection that
// cannot write (open-connection.ts), and only then opened to write. A reader never changes the
// file, nor leaves a file beside it.

import { fileURLToPath } from 'node:url';
import { StorageError } from '@agent-ledger/core';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { backfillTurnHashes } from './backfill-turn-hashes.ts';
import { retryWhileBusy } from './busy-retry.ts';
import { inspectLedgerFile, type LedgerFile } from './ledger-file.ts';
import {
  damagedLedger,
  foreignDatabase,
  isDamage,
  NOT_A_LEDGER,
  notALedger,
  olderLedger,
  readOnlyHere,
} from './ledger-refusals.ts';
import { type LedgerSchema, readLedgerSchema } from './ledger-schema.ts';
import { type ConnectionAccess, enableUriFilenames, openConnection } from './open-connection.ts';
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

/** The SQLite names of a throwaway database: nothing written to it outlives the connection. */
function isTemporary(location: string): boolean {
  return location.trim() === '' || location.trim() === ':memory:';
}

export function openDatabase(options: OpenDatabaseOptions): LedgerDatabase {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  // Reading (or checking) never changes the file: no migrations, no WAL switch, nothing created beside it.
  const reading = options.readonly === true || options.inspect === true;
  let sqlite: Database.Database;
  enableUriFilenames();
  if (isTemporary(options.path))
    sqlite = connect(() => new Database(options.path, { timeout: busyTimeoutMs, readonly: options.readonly }), options.path);
  else if (reading) sqlite = openLedgerToRead({ ...options, busyTimeoutMs });
  else sqlite = openLedgerToWrite(inspectLedgerFile(options.path), { ...options, busyTimeoutMs });
  return prepare(sqlite, { path: options.path, reading });
}

/** The ledger in `file`, checked before a byte of it is written; a new or zero-byte file becomes one. */
function openLedgerToWrite(file: LedgerFile, options: OpenDatabaseOptions & { busyTimeoutMs: number }): Database.Database {
  if (file.kind === 'directory') throw notALedger(file, NOT_A_LEDGER.directory);
  if (file.kind === 'not-sqlite') throw notALedger(file, NOT_A_LEDGER.notSqlite);
  if (options.mustExist && (file.kind === 'missing' || file.kind === 'empty'))
    throw notALedger(file, file.kind === 'empty' ? NOT_A_LEDGER.empty : undefined);
  // Refused before SQLite opens it: a connection that cannot write would still leave -wal and -shm files.
  if (!file.writable) throw readOnlyHere(file);
  if (file.kind === 'sqlite') {
    // Looked at through a connection that cannot write, closed before the one that writes opens.
    const probe = openLedgerConnection(file, { access: 'read', busyTimeoutMs: options.busyTimeoutMs });
    try {
      const schema = checkedSchema(file, probe);
      if (schema.kind === 'foreign') throw foreignDatabase(file, schema.tables);
      if (schema.kind === 'blank' && options.mustExist) throw notALedger(file, NOT_A_LEDGER.blank);
      if (schema.kind === 'ledger' && options.checkIntegrity) requireIntact(file, probe);
    } finally {
      probe.close();
    }
  }
  return openLedgerConnection(file, { access: 'write', busyTimeoutMs: options.busyTimeoutMs });
}

/**
 * The ledger at `options.path`, opened so that nothing is written to it, nor created beside it. The
 * one exception is asked for with `upgrade`: an older ledger that passes a writer's checks is
 * migrated first, as the next write would, so that what the reader asks for exists.
 */
function openLedgerToRead(options: OpenDatabaseOptions & { busyTimeoutMs: number }): Database.Database {
  const file = inspectLedgerFile(options.path);
  if (file.kind === 'missing') throw notALedger(file);
  if (file.kind === 'directory') throw notALedger(file, NOT_A_LEDGER.directory);
  if (file.kind === 'empty') throw notALedger(file, NOT_A_LEDGER.empty);
  if (file.kind === 'not-sqlite') throw notALedger(file, NOT_A_LEDGER.notSqlite);
  const access: ConnectionAccess = options.readonly ? 'read' : 'inspect';
  const sqlite = openLedgerConnection(file, { access, busyTimeoutMs: options.busyTimeoutMs });
  let missing: string[];
  try {
    const schema = checkedSchema(file, sqlite);
    if (schema.kind === 'foreign') throw foreignDatabase(file, schema.tables);
    if (schema.kind === 'blank') throw notALedger(file, NOT_A_LEDGER.blank);
    missing = schema.missingMigrations;
  } catch (error) {
    sqlite.close();
    throw error;
  }
  if (missing.length === 0 || !options.upgrade) return sqlite;
  sqlite.close();
  if (!file.writable) throw olderLedger(file, missing);
  const writer = prepare(openLedgerToWrite(file, { ...options, mustExist: true }), { path: options.path, reading: false });
  writer.close();
  return openLedgerToRead({ ...options, upgrade: false });
}

function openLedgerConnection(file: LedgerFile, options: { access: ConnectionAccess; busyTimeoutMs: number }): Database.Database {
  if (file.kind === 'sqlite' && file.damage) throw damagedLedger(file, file.damage);
  return connect(() => openConnection(file, options), file.path, file.writable);
}

/** The schema of `file`; SQLite finding it malformed on the first read is damage, said as such. */
function checkedSchema(file: LedgerFile, sqlite: Database.Database): LedgerSchema {
  try {
    return readLedgerSchema(sqlite, MIGRATIONS_FOLDER);
  } catch (error) {
    if (isDamage(error)) throw damagedLedger(file, (error as Error).message, { cause: error });
    throw cannotOpen(file.path, error, file.writable);
  }
}

/** PRAGMA quick_check over every page: the one check that finds a damaged page anywhere in the file. */
function requireIntact(file: LedgerFile, sqlite: Database.Database): void {
  let findings: string[];
  try {
    // At most this many findings: a badly damaged file would list every page.
    findings = (sqlite.pragma('quick_check(20)') as Array<{ quick_check: string }>).map((row) => row.quick_check);
  } catch (error) {
    if (isDamage(error)) throw damagedLedger(file, (error as Error).message, { cause: error });
    throw cannotOpen(file.path, error, file.writable);
  }
  if (findings.length !== 1 || findings[0] !== 'ok') throw damagedLedger(file, `PRAGMA quick_check found ${findings.join('; ')}`);
}

function connect(open: () => Database.Database, location: string, writable = true): Database.Database {
  try {
    return open();
  } catch (error) {
    throw cannotOpen(location, error, writable);
  }
}

function cannotOpen(location: string, error: unknown, writable: boolean): StorageError {
  const where = writable ? '' : ' (this process may not write the file or its folder)';
  return new StorageError(
    `Cannot open the ledger database at ${location}${where}: ${(error as Error).message}${nativeModuleHint(error)}`,
    { cause: error },
  );
}

/** The connection's settings, and for a writer the schema brought up to date. */
function prepare(sqlite: Database.Database, options: { path: string; reading: boolean }): LedgerDatabase {
  try {
    // WAL lets readers run beside one writer; NORMAL sync is durable across process crashes (a
    // power loss may drop the last transactions, never corrupt the file).
    if (!options.reading) retryWhileBusy(() => sqlite.pragma('journal_mode = WAL'));
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    // REPLACE conflict resolution then fires DELETE triggers, so it cannot slip past them.
    sqlite.pragma('recursive_triggers = ON');
    const db = drizzle({ client: sqlite, schema });
    if (!options.reading) {
      // Other processes may be opening the same new file (busy-retry.ts).
      retryWhileBusy(() => migrateAlongsideOthers(db));
      // Turns written before the hash chain existed get their hashes from the first writer (0014).
      retryWhileBusy(() => backfillTurnHashes(sqlite));
    }
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
