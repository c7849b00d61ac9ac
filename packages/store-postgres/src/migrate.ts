// Brings a PostgreSQL database to the ledger's schema: the migrations drizzle-kit generated into
// ../drizzle-postgres (in the journal's order, each once, each in its own transaction), then the
// areas' idempotent extra SQL (../drizzle-postgres/extra/*.sql, in file-name order).
// Opening a database that is already current costs one statement on the connection the first read
// then reuses: the probe reads which migrations and which extras (by a hash of their text) are
// recorded in nexus_migrations. Only when something is missing or changed does the opening take the
// session-level advisory lock and apply it, so N processes opening the same database at once
// migrate it exactly once: the first applies, the others wait and then find nothing to do.
// A read-only opening applies nothing; it only checks that a ledger is there. Turns older than the
// turns' hash chain get their hashes here too (backfill-turn-hashes.ts).

import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseNotFoundError, StorageError } from '@agent-ledger/core';
import type pg from 'pg';
import { backfillTurnHashes } from './backfill-turn-hashes.ts';

export interface MigratePostgresOptions {
  readonly: boolean;
  mustExist: boolean;
  /** The database as shown to a person (the URL without its password). */
  location: string;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));
const EXTRA_FOLDER = path.join(MIGRATIONS_FOLDER, 'extra');
const STATEMENT_BREAKPOINT = '--> statement-breakpoint';

/** The advisory lock every ledger process takes to migrate (one constant: "nexus" in ASCII, then 0x4d49 "MI"). */
const MIGRATION_LOCK = 0x6e657875734d49n;

const NOT_A_LEDGER = "It is a PostgreSQL database, but not a nexus ledger (it has none of the ledger's tables).";

/** SQLSTATE undefined_table: the probe met a database without nexus_migrations (fresh, or not a ledger). */
const UNDEFINED_TABLE = '42P01';

interface Migration {
  tag: string;
  hash: string;
  statements: string[];
}

/** One extra/*.sql file; its row in nexus_migrations is `extra/<name>` with the hash of the text it last applied. */
interface Extra {
  tag: string;
  hash: string;
  text: string;
}

/** The schema this code ships: the same for every opening in a process, so it is read from disk once. */
interface ShippedSchema {
  migrations: Migration[];
  extras: Extra[];
}

interface Journal {
  entries: Array<{ idx: number; tag: string }>;
}

/** What a database records of its schema, read in one statement. */
interface RecordedSchema {
  /** The ledger's tables are there (the bookkeeping alone does not count). */
  ledger: boolean;
  /** Migration 0004's backfill of older turns' hashes has not run yet. */
  backfillPending: boolean;
  /** nexus_migrations: tag → hash, for migrations and extras alike. */
  recorded: Map<string, string>;
}

function statementsOf(text: string): string[] {
  return text
    .split(STATEMENT_BREAKPOINT)
    .map((statement) => statement.trim())
    .filter((statement) => statement.replace(/^--.*$/gm, '').trim() !== '');
}

/** Line endings are left out, so checkouts with CRLF and LF do not take turns re-applying the same extras. */
function hashOf(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

async function readMigrations(): Promise<Migration[]> {
  const journal = JSON.parse(await readFile(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as Journal;
  const entries = [...journal.entries].sort((a, b) => a.idx - b.idx);
  return Promise.all(
    entries.map(async ({ tag }) => {
      const text = await readFile(path.join(MIGRATIONS_FOLDER, `${tag}.sql`), 'utf8');
      return { tag, hash: createHash('sha256').update(text).digest('hex'), statements: statementsOf(text) };
    }),
  );
}

async function readExtras(): Promise<Extra[]> {
  let names: string[];
  try {
    names = (await readdir(EXTRA_FOLDER)).filter((name) => name.endsWith('.sql')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return Promise.all(
    names.map(async (name) => {
      const text = await readFile(path.join(EXTRA_FOLDER, name), 'utf8');
      return { tag: `extra/${name}`, hash: hashOf(text), text };
    }),
  );
}

let shipped: Promise<ShippedSchema> | undefined;

function shippedSchema(): Promise<ShippedSchema> {
  if (shipped) return shipped;
  const reading = Promise.all([readMigrations(), readExtras()]).then(([migrations, extras]) => ({ migrations, extras }));
  shipped = reading;
  // A failed read (a file being replaced by an upgrade) is not kept: the next opening reads again.
  reading.catch(() => {
    if (shipped === reading) shipped = undefined;
  });
  return reading;
}

/** True when the database holds the ledger's tables (the bookkeeping alone does not count). */
async function hasLedger(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ present: boolean }>(
    "SELECT to_regclass('agent_sessions') IS NOT NULL AND to_regclass('agent_turns') IS NOT NULL AS present",
  );
  return rows[0]?.present ?? false;
}

const PROBE =
  "SELECT to_regclass('agent_sessions') IS NOT NULL AND to_regclass('agent_turns') IS NOT NULL AS ledger, " +
  "to_regclass('turn_hashes_pending') IS NOT NULL AS backfill_pending, " +
  "(SELECT coalesce(json_object_agg(tag, hash), '{}'::json) FROM nexus_migrations) AS recorded";

/**
 * The database's schema as recorded, in one round trip; null when it has no nexus_migrations (a
 * fresh database, or not a ledger). The table cannot be tested for inside the statement that reads
 * it (PostgreSQL resolves a table's name before running anything), so its absence is the error.
 */
async function readRecordedSchema(client: pg.PoolClient): Promise<RecordedSchema | null> {
  try {
    const { rows } = await client.query<{ ledger: boolean; backfill_pending: boolean; recorded: Record<string, string> }>(PROBE);
    const row = rows[0];
    if (!row) return null;
    return { ledger: row.ledger, backfillPending: row.backfill_pending, recorded: new Map(Object.entries(row.recorded)) };
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return null;
    throw error;
  }
}

/** True when there is nothing to apply: every migration recorded, every extra as this code ships it, no backfill due. */
function isCurrent(state: RecordedSchema | null, schema: ShippedSchema): boolean {
  if (!state?.ledger || state.backfillPending) return false;
  return (
    schema.migrations.every((migration) => state.recorded.has(migration.tag)) &&
    schema.extras.every((extra) => state.recorded.get(extra.tag) === extra.hash)
  );
}

async function inTransaction(client: pg.PoolClient, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Applies the migrations not recorded yet; returns how many it applied. */
async function applyMissingMigrations(
  client: pg.PoolClient,
  schema: ShippedSchema,
  recorded: Map<string, string>,
): Promise<number> {
  let applied = 0;
  for (const migration of schema.migrations) {
    if (recorded.has(migration.tag)) continue;
    await inTransaction(client, async () => {
      for (const statement of migration.statements) await client.query(statement);
      await client.query('INSERT INTO nexus_migrations (tag, hash, applied_at) VALUES ($1, $2, $3)', [
        migration.tag,
        migration.hash,
        Date.now(),
      ]);
    });
    applied += 1;
  }
  return applied;
}

/**
 * Applies each extra whose text changed since it was last applied (or every extra, after a migration,
 * which may have replaced what they made), and records the hash of what it applied with it.
 */
async function applyExtras(
  client: pg.PoolClient,
  options: { extras: Extra[]; recorded: Map<string, string>; all: boolean },
): Promise<void> {
  for (const extra of options.extras) {
    if (!options.all && options.recorded.get(extra.tag) === extra.hash) continue;
    try {
      await inTransaction(client, async () => {
        await client.query(extra.text);
        await client.query(
          'INSERT INTO nexus_migrations (tag, hash, applied_at) VALUES ($1, $2, $3) ' +
            'ON CONFLICT (tag) DO UPDATE SET hash = EXCLUDED.hash, applied_at = EXCLUDED.applied_at',
          [extra.tag, extra.hash, Date.now()],
        );
      });
    } catch (error) {
      throw new StorageError(`The ledger's PostgreSQL schema could not apply ${extra.tag}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

/** Everything missing, under the migration lock: whoever waited on it finds what the first applied. */
async function applyMigrations(client: pg.PoolClient, options: MigratePostgresOptions, schema: ShippedSchema): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    // Checked before anything is written: someone else's database must not get the ledger's tables.
    if (options.mustExist && !(await hasLedger(client))) throw new DatabaseNotFoundError(options.location, NOT_A_LEDGER);
    await client.query(
      'CREATE TABLE IF NOT EXISTS nexus_migrations (tag text PRIMARY KEY, hash text NOT NULL, applied_at bigint NOT NULL)',
    );
    const { rows } = await client.query<{ tag: string; hash: string }>('SELECT tag, hash FROM nexus_migrations');
    const recorded = new Map(rows.map((row) => [row.tag, row.hash]));
    const applied = await applyMissingMigrations(client, schema, recorded);
    await applyExtras(client, { extras: schema.extras, recorded, all: applied > 0 });
    // Turns older than their hash chain (0004) get their hashes, still under the lock: once.
    await inTransaction(client, async () => {
      await backfillTurnHashes(client);
    });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]).catch(() => undefined);
  }
}

/** A read-only opening: nothing is written, the ledger must be there and as new as this code. */
async function checkSchema(
  client: pg.PoolClient,
  options: MigratePostgresOptions,
  found: { state: RecordedSchema | null; schema: ShippedSchema },
): Promise<void> {
  const ledger = found.state ? found.state.ledger : await hasLedger(client);
  if (!ledger) throw new DatabaseNotFoundError(options.location, NOT_A_LEDGER);
  const recorded = found.state?.recorded ?? new Map<string, string>();
  const missing = found.schema.migrations.filter((migration) => !recorded.has(migration.tag)).map((migration) => migration.tag);
  if (missing.length > 0)
    throw new StorageError(
      `The ledger at ${options.location} is older than this version (migrations ${missing.join(', ')} not applied): open it once for writing to migrate it.`,
    );
}

async function connect(pool: pg.Pool, location: string): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    if ((error as { code?: unknown }).code === '3D000')
      throw new DatabaseNotFoundError(location, 'The PostgreSQL server has no such database: create it first (createdb).');
    throw new StorageError(`Cannot reach the PostgreSQL server at ${location}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Makes the database ready for the ledger. A current database costs one statement, and the connection
 * goes back to the pool for the first read; one that needed the lock is discarded instead (below).
 */
export async function migratePostgres(pool: pg.Pool, options: MigratePostgresOptions): Promise<void> {
  const reading = shippedSchema();
  reading.catch(() => undefined);
  const client = await connect(pool, options.location);
  let locked = false;
  try {
    const schema = await reading;
    const state = await readRecordedSchema(client);
    if (options.readonly) await checkSchema(client, options, { state, schema });
    else if (!isCurrent(state, schema)) {
      locked = true;
      await applyMigrations(client, options, schema);
    }
  } catch (error) {
    if (DatabaseNotFoundError.isInstance(error) || StorageError.isInstance(error)) throw error;
    throw new StorageError(`Cannot prepare the ledger at ${options.location}: ${(error as Error).message}`, { cause: error });
  } finally {
    // A connection that took the migration lock is discarded rather than pooled: should the unlock
    // have failed, it would still hold the session-level lock, and every later opening would wait on it.
    client.release(locked);
  }
}
