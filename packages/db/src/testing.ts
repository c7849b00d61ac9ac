// For tests only (`@nexus/db/testing`): a plain driver connection to a SQLite ledger file, as
// another program would open it, to count rows or to damage a ledger on purpose and check that
// doctor and the readers notice. Nothing in the ledgers uses it.

import Database from 'better-sqlite3';
import pg from 'pg';

export type RawSqlite = Database.Database;

export function openRawSqlite(path: string, options: { readonly?: boolean } = {}): RawSqlite {
  const sqlite = new Database(path, { readonly: options.readonly ?? false });
  sqlite.pragma('busy_timeout = 5000');
  return sqlite;
}

/**
 * Runs `work` with the append-only triggers of agent_turns lifted, as a tool that edits the file
 * behind the ledger's back would: the triggers are restored afterwards, even when `work` throws.
 */
export function withTurnTriggersLifted<T>(sqlite: RawSqlite, work: () => T): T {
  const triggers = sqlite
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'agent_turns' AND name LIKE 'agent_turns_no_%'",
    )
    .all() as Array<{ name: string; sql: string }>;
  for (const trigger of triggers) sqlite.exec(`DROP TRIGGER "${trigger.name}"`);
  try {
    return work();
  } finally {
    for (const trigger of triggers) sqlite.exec(trigger.sql);
  }
}

/**
 * A fresh, empty database on a PostgreSQL server (for tests: the run's server from vitest's
 * `inject('postgresUrl')`), with a unique name; returns its URL.
 */
export async function freshPostgresDatabase(serverUrl: string, label = 'test'): Promise<string> {
  freshDatabases += 1;
  const name = `${label}_${process.pid}_${freshDatabases}_${Date.now().toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
let freshDatabases = 0;
