// For tests only (`@agent-ledger/store-sqlite/testing`): a plain driver connection to a SQLite ledger
// file, as another program would open it, to count rows or to damage a ledger on purpose and check
// that doctor and the readers notice. Nothing in the ledgers uses it.

import Database from 'better-sqlite3';

/** A raw better-sqlite3 connection (its methods as the driver has them). */
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
