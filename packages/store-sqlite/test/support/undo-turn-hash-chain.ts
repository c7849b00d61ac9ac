// Takes a ledger file back to what it was before migration 0014 (turns' hash chain): the trigger
// 0010 made, no hash column, and 0014 not recorded as applied. For tests of older files. The
// migrations after 0014 are undone first, newest first, since a migration is recorded as applied
// when anything newer is.

import type Database from 'better-sqlite3';

/** Before migration 0015: the index on previous_compaction_id holds every turn, NULLs included. */
export function undoPartialPreviousCompactionIndex(sqlite: Database.Database): void {
  sqlite.exec(`
    DROP INDEX idx_turns_previous_compaction;
    CREATE INDEX idx_turns_previous_compaction ON agent_turns (previous_compaction_id);
    DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations);
  `);
}

export function undoTurnHashChain(sqlite: Database.Database): void {
  undoPartialPreviousCompactionIndex(sqlite);
  sqlite.exec(`
    DROP TRIGGER agent_turns_no_update;
    DROP TABLE IF EXISTS turn_hashes_pending;
    ALTER TABLE agent_turns DROP COLUMN hash;
    CREATE TRIGGER agent_turns_no_update BEFORE UPDATE ON agent_turns
    BEGIN SELECT RAISE(ABORT, 'turns are append-only: UPDATE is not allowed'); END;
    DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations);
  `);
}
