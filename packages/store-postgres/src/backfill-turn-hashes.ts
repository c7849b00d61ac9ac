// Hashes for the turns written before turns were hash-chained (migration 0004 added the column
// empty, and the table turn_hashes_pending to say so). SQL cannot compute the hash, so the process
// that migrates does, under the migration lock and in one transaction that ends by dropping that
// table: parents before children (by depth), a chunk at a time, each chunk written before the next
// is read so a child finds its parent's new hash through the join. A hash missing after that is
// never filled in: it is evidence that someone erased it, which doctor reports.

import { hashesInOrder } from '@agent-ledger/store';
import type pg from 'pg';
import { HASHED_TURN_COLUMNS, hashedTurnFromRow } from './turn-chain-queries.ts';

const CHUNK = 1000;

/** How many turns got a hash (0 when the migration's backfill was already done). Call in a transaction. */
export async function backfillTurnHashes(client: pg.PoolClient): Promise<number> {
  const { rows: pending } = await client.query<{ pending: boolean }>(
    "SELECT to_regclass('turn_hashes_pending') IS NOT NULL AS pending",
  );
  if (!pending[0]?.pending) return 0;
  const { rows: ordered } = await client.query<{ id: string }>(
    'SELECT id FROM agent_turns WHERE hash IS NULL ORDER BY depth, id',
  );
  const order = ordered.map((row) => row.id);
  for (let start = 0; start < order.length; start += CHUNK) {
    const chunk = order.slice(start, start + CHUNK);
    const { rows } = await client.query(
      `SELECT ${HASHED_TURN_COLUMNS} FROM agent_turns t LEFT JOIN agent_turns p ON p.id = t.parent_turn_id WHERE t.id = ANY($1::text[])`,
      [chunk],
    );
    const made = hashesInOrder(rows.map(hashedTurnFromRow), chunk);
    await client.query(
      'UPDATE agent_turns t SET hash = v.hash FROM unnest($1::text[], $2::text[]) AS v (id, hash) WHERE t.id = v.id AND t.hash IS NULL',
      [made.map((each) => each.id), made.map((each) => each.hash)],
    );
  }
  await client.query('DROP TABLE turn_hashes_pending');
  return order.length;
}
