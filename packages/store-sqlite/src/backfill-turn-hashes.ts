// Hashes for the turns written before turns were hash-chained (migration 0014 added the column
// empty, and the table turn_hashes_pending to say so). SQL cannot compute the hash, so the first
// writer to open the file does, once, in one IMMEDIATE transaction that ends by dropping that table:
// parents before children (by depth), a chunk at a time, each chunk written before the next is read
// so a child finds its parent's new hash through the join. Another process that opens the file
// meanwhile waits on the write lock and then finds nothing left to do. A hash missing after that is
// never filled in: it is evidence that someone erased it, which doctor reports.

import { hashesInOrder } from '@agent-ledger/store';
import type Database from 'better-sqlite3';
import { chunks, placeholders } from './sqlite-connection.ts';
import { HASHED_TURN_COLUMNS, hashedTurnFromRow } from './turn-chain-queries.ts';

const PENDING = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'turn_hashes_pending'";

/** How many turns got a hash (0 when the migration's backfill was already done). */
export function backfillTurnHashes(sqlite: Database.Database): number {
  if (!sqlite.prepare(PENDING).get()) return 0;
  const write = sqlite.prepare('UPDATE agent_turns SET hash = ? WHERE id = ? AND hash IS NULL');
  const fill = sqlite.transaction(() => {
    // Another process may have done it while this one waited for the lock.
    if (!sqlite.prepare(PENDING).get()) return 0;
    // Ids only, in the order hashes must be made: one sort of small rows, then the rows by chunk.
    const order = sqlite.prepare('SELECT id FROM agent_turns WHERE hash IS NULL ORDER BY depth, id').pluck().all() as string[];
    for (const chunk of chunks(order)) {
      const rows = sqlite
        .prepare(
          `SELECT ${HASHED_TURN_COLUMNS} FROM agent_turns t LEFT JOIN agent_turns p ON p.id = t.parent_turn_id ` +
            `WHERE t.id IN (${placeholders(chunk.length)})`,
        )
        .all(...chunk) as Array<Record<string, unknown>>;
      for (const { id, hash } of hashesInOrder(rows.map(hashedTurnFromRow), chunk)) write.run(hash, id);
    }
    sqlite.exec('DROP TABLE turn_hashes_pending');
    return order.length;
  });
  return fill.immediate();
}
