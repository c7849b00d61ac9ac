// Brings a PostgreSQL database to the ledger's schema: the migrations drizzle-kit generated into
// ../drizzle-postgres (in the journal's order, each once, each in its own transaction), then the
// areas' idempotent extra SQL (../drizzle-postgres/extra/*.sql, every time, in file-name order).
// All of it runs under one session-level advisory lock, so N processes opening the same database at
// once migrate it exactly once: the first applies, the others wait and then find nothing to do.
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

interface Migration {
  tag: string;
  hash: string;
  statements: string[];
}

interface Journal {
  entries: Array<{ idx: number; tag: string }>;
}

function statementsOf(text: string): string[] {
  return text
    .split(STATEMENT_BREAKPOINT)
    .map((statement) => statement.trim())
    .filter((statement) => statement.replace(/^--.*$/gm, '').trim() !== '');
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

async function readExtras(): Promise<Array<{ name: string; text: string }>> {
  let names: string[];
  try {
    names = (await readdir(EXTRA_FOLDER)).filter((name) => name.endsWith('.sql')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(path.join(EXTRA_FOLDER, name), 'utf8') })));
}

/** True when the database holds the ledger's tables (the bookkeeping alone does not count). */
async function hasLedger(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ present: boolean }>(
    "SELECT to_regclass('agent_sessions') IS NOT NULL AND to_regclass('agent_turns') IS NOT NULL AS present",
  );
  return rows[0]?.present ?? false;
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

async function applyMigrations(client: pg.PoolClient, options: MigratePostgresOptions): Promise<void> {
  const [migrations, extras] = await Promise.all([readMigrations(), readExtras()]);
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    // Checked before anything is written: someone else's database must not get the ledger's tables.
    if (options.mustExist && !(await hasLedger(client))) throw new DatabaseNotFoundError(options.location, NOT_A_LEDGER);
    await client.query(
      'CREATE TABLE IF NOT EXISTS nexus_migrations (tag text PRIMARY KEY, hash text NOT NULL, applied_at bigint NOT NULL)',
    );
    const { rows } = await client.query<{ tag: string }>('SELECT tag FROM nexus_migrations');
    const applied = new Set(rows.map((row) => row.tag));
    for (const migration of migrations) {
      if (applied.has(migration.tag)) continue;
      await inTransaction(client, async () => {
        for (const statement of migration.statements) await client.query(statement);
        await client.query('INSERT INTO nexus_migrations (tag, hash, applied_at) VALUES ($1, $2, $3)', [
          migration.tag,
          migration.hash,
          Date.now(),
        ]);
      });
    }
    for (const extra of extras) {
      try {
        await inTransaction(client, async () => {
          await client.query(extra.text);
        });
      } catch (error) {
        throw new StorageError(
          `The ledger's PostgreSQL schema could not apply extra/${extra.name}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    }
    // Turns older than their hash chain (0004) get their hashes, still under the lock: once.
    await inTransaction(client, async () => {
      await backfillTurnHashes(client);
    });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]).catch(() => undefined);
  }
}

/** A read-only opening: nothing is written, the ledger must be there and as new as this code. */
async function checkSchema(client: pg.PoolClient, options: MigratePostgresOptions): Promise<void> {
  if (!(await hasLedger(client))) throw new DatabaseNotFoundError(options.location, NOT_A_LEDGER);
  const migrations = await readMigrations();
  const { rows } = await client.query<{ tags: string[] | null }>(
    "SELECT CASE WHEN to_regclass('nexus_migrations') IS NULL THEN NULL ELSE (SELECT array_agg(tag) FROM nexus_migrations) END AS tags",
  );
  const applied = new Set(rows[0]?.tags ?? []);
  const missing = migrations.filter((migration) => !applied.has(migration.tag)).map((migration) => migration.tag);
  if (missing.length > 0)
    throw new StorageError(
      `The ledger at ${options.location} is older than this version (migrations ${missing.join(', ')} not applied): open it once for writing to migrate it.`,
    );
}

export async function migratePostgres(pool: pg.Pool, options: MigratePostgresOptions): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    if ((error as { code?: unknown }).code === '3D000')
      throw new DatabaseNotFoundError(
        options.location,
        'The PostgreSQL server has no such database: create it first (createdb).',
      );
    throw new StorageError(`Cannot reach the PostgreSQL server at ${options.location}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    if (options.readonly) await checkSchema(client, options);
    else await applyMigrations(client, options);
  } catch (error) {
    if (DatabaseNotFoundError.isInstance(error) || StorageError.isInstance(error)) throw error;
    throw new StorageError(`Cannot prepare the ledger at ${options.location}: ${(error as Error).message}`, { cause: error });
  } finally {
    // Discarded rather than pooled: should the unlock above have failed, the connection would still
    // hold the session-level migration lock, and every later opening would wait on it.
    client.release(true);
  }
}
