// An attacker with the database: raw SQL on a ledger's tables with the append-only triggers and
// foreign keys out of the way, as anyone who holds the SQLite file or a superuser's PostgreSQL
// login can do. For the tampering tests only.

import { type StoreOperations, turnHash } from '@agent-ledger/store';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import pg from 'pg';

export interface RawAccess {
  /** Runs one statement; `?` marks a parameter on both engines. */
  run(sql: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/** A raw connection that ignores the ledger's triggers and foreign keys. */
export async function openAttacker(engine: 'sqlite' | 'postgres', location: string): Promise<RawAccess> {
  if (engine === 'sqlite') {
    const sqlite = openRawSqlite(location);
    sqlite.pragma('foreign_keys = OFF');
    const triggers = sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_no_%'")
      .pluck()
      .all() as string[];
    for (const name of triggers) sqlite.exec(`DROP TRIGGER "${name}"`);
    return {
      run: async (sql, params = []) => {
        sqlite.prepare(sql).run(...params);
      },
      close: async () => {
        // What a careful attacker does last: the search indexes agree with the rows again.
        sqlite.exec("INSERT INTO turns_fts (turns_fts) VALUES ('rebuild')");
        sqlite.exec("INSERT INTO compactions_fts (compactions_fts) VALUES ('rebuild')");
        sqlite.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  // Replica mode fires no ordinary triggers and checks no foreign keys: a superuser can always do this.
  await client.query("SET session_replication_role = 'replica'");
  return {
    run: async (sql, params = []) => {
      let index = 0;
      await client.query(
        sql.replace(/\?/g, () => `$${++index}`),
        params,
      );
    },
    close: () => client.end(),
  };
}

/**
 * Rewrites every stored hash so each link verifies again after an edit: what an attacker who knows
 * the hash rule does to hide a change from a check that has no checkpoint.
 */
export async function rehashEverything(store: StoreOperations, raw: RawAccess): Promise<void> {
  const rows = (await store.hashedTurns({ limit: 100_000 })).sort((left, right) => left.turn.depth - right.turn.depth);
  const fresh = new Map<string, string>();
  for (const { turn, parentHash, eventIds } of rows) {
    const parent = turn.parentTurnId === null ? null : (fresh.get(turn.parentTurnId) ?? parentHash);
    const value = turnHash({ turn, parentHash: parent, eventIds });
    fresh.set(turn.id, value);
    if (value !== turn.hash) await raw.run('UPDATE agent_turns SET hash = ? WHERE id = ?', [value, turn.id]);
  }
}
