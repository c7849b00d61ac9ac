// A forest chain on PostgreSQL in two round trips, however many forests it holds: a recursive query
// collects the states reachable by previous_compaction_id (UNION, so a chain that loops ends), then
// one read of all their nodes; @agent-ledger/store's linkForestChain puts them in order.

import { type ChainNodeRow, type ForestChainLink, type ForestStateRecord, linkForestChain } from '@agent-ledger/store';
import { FOREST_STATE_COLUMNS } from './forest-state-columns.ts';
import type { PgExecutor } from './pg-executor.ts';

const CHAIN =
  'WITH RECURSIVE chain(id) AS (SELECT $1::text UNION ' +
  'SELECT s.previous_compaction_id FROM chain JOIN forest_states s ON s.compaction_id = chain.id ' +
  'WHERE s.previous_compaction_id IS NOT NULL) ';

export async function forestChain(db: PgExecutor, compactionId: string): Promise<ForestChainLink[]> {
  // jsonb (config, changed terms) comes back parsed.
  const states = await db.query<ForestStateRecord>(
    `${CHAIN}SELECT ${FOREST_STATE_COLUMNS} FROM forest_states WHERE compaction_id IN (SELECT id FROM chain)`,
    [compactionId],
  );
  if (states.length === 0) return [];
  const nodes = await db.query<ChainNodeRow>(
    `${CHAIN}SELECT compaction_id AS "compactionId", node_id AS "nodeId", parent_id AS "parentId", kind FROM forest_nodes ` +
      'WHERE compaction_id IN (SELECT id FROM chain) ORDER BY compaction_id, position',
    [compactionId],
  );
  return linkForestChain(compactionId, states, nodes);
}
