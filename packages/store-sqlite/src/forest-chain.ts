// A forest chain on SQLite in two statements, however many forests it holds: a recursive query
// collects the states reachable by previous_compaction_id (UNION, so a chain that loops ends), then
// one read of all their nodes; @agent-ledger/store's linkForestChain puts them in order.

import { type ChainNodeRow, type ForestChainLink, linkForestChain } from '@agent-ledger/store';
import { decodeState, STATE_COLUMNS } from './forest-state-rows.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

const CHAIN =
  'WITH RECURSIVE chain(id) AS (SELECT ? UNION ' +
  'SELECT s.previous_compaction_id FROM chain JOIN forest_states s ON s.compaction_id = chain.id ' +
  'WHERE s.previous_compaction_id IS NOT NULL) ';

export function forestChain(connection: SqliteConnection, compactionId: string): ForestChainLink[] {
  const states = (
    connection
      .statement(`${CHAIN}SELECT ${STATE_COLUMNS} FROM forest_states WHERE compaction_id IN (SELECT id FROM chain)`)
      .all(compactionId) as Array<Record<string, unknown>>
  ).map(decodeState);
  if (states.length === 0) return [];
  const nodes = connection
    .statement(
      `${CHAIN}SELECT compaction_id AS compactionId, node_id AS nodeId, parent_id AS parentId, kind FROM forest_nodes ` +
        'WHERE compaction_id IN (SELECT id FROM chain) ORDER BY compaction_id, position',
    )
    .all(compactionId) as ChainNodeRow[];
  return linkForestChain(compactionId, states, nodes);
}
