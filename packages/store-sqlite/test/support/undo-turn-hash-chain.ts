// Takes a ledger file back to what it was before migration 0014 (turns' hash chain): the trigger
// 0010 made, no hash column, and 0014 not recorded as applied. For tests of older files.

import type Database from 'better-sqlite3';

export function undoTurnHashChain(sqlite: Database.Database): void {
  sqlite.exec(`
    DROP TRIGGER agent_turns_no_update;
    DROP TABLE IF EXISTS turn_hashes_pending;
    ALTER TABLE agent_turns DROP COLUMN hash;
    CREATE TRIGGER agent_turns_no_update BEFORE UPDATE ON agent_turns
    BEGIN SELECT RAISE(ABORT, 'turns are append-only: UPDATE is not allowed'); END;
    DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations);
  `);
}
