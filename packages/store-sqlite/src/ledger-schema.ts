// What the schema of an open SQLite file says it is: a ledger (and how many of this code's
// migrations it still lacks), a database with no tables yet, or another program's database. Read
// from sqlite_master and drizzle's migrations table only, so it costs a millisecond on any size.

import { readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';

export type LedgerSchema =
  | { kind: 'ledger'; missingMigrations: string[] }
  | { kind: 'blank' }
  | { kind: 'foreign'; tables: string[] };

/** The table drizzle's migrator keeps; alone, it is a ledger being created by another process. */
const MIGRATIONS_TABLE = '__drizzle_migrations';

export function readLedgerSchema(sqlite: Database.Database, migrationsFolder: string): LedgerSchema {
  const names = (
    sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as Array<{
      name: string;
    }>
  ).map((row) => row.name);
  if (names.includes('agent_sessions')) return { kind: 'ledger', missingMigrations: missingMigrations(sqlite, migrationsFolder) };
  const others = names.filter((name) => name !== MIGRATIONS_TABLE);
  return others.length === 0 ? { kind: 'blank' } : { kind: 'foreign', tables: others };
}

/**
 * This code's migrations the file has not applied, by tag. drizzle's migrator applies every
 * migration newer than the newest one recorded in the file, so that is the comparison made here.
 */
function missingMigrations(sqlite: Database.Database, migrationsFolder: string): string[] {
  const hasTable = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE);
  const newest = hasTable
    ? ((sqlite.prepare(`SELECT max(created_at) AS newest FROM ${MIGRATIONS_TABLE}`).get() as { newest: number | null }).newest ??
      0)
    : 0;
  return migrationJournal(migrationsFolder)
    .filter((entry) => entry.when > newest)
    .map((entry) => entry.tag);
}

interface JournalEntry {
  tag: string;
  when: number;
}

const journals = new Map<string, JournalEntry[]>();

function migrationJournal(migrationsFolder: string): JournalEntry[] {
  let entries = journals.get(migrationsFolder);
  if (!entries) {
    const journal = JSON.parse(readFileSync(`${migrationsFolder}/meta/_journal.json`, 'utf8')) as { entries: JournalEntry[] };
    entries = journal.entries.map(({ tag, when }) => ({ tag, when }));
    journals.set(migrationsFolder, entries);
  }
  return entries;
}
