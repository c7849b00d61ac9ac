// The forest's integrity checks on SQLite (for `nexus doctor`): forests without a compaction that
// writes one, such compactions without a forest, and parent pointers that name the compaction
// itself, a turn that does not exist, or a turn the compaction does not cover. Which compactions
// write a forest is the strategies' business: the caller names them, the engine names none.

import type { ForestIntegrityFinding } from '@agent-ledger/store';
import type { SqliteConnection } from './sqlite-connection.ts';

type FindingRow = { compactionId: string; nodeId?: string };

/** `c.strategy` is one of the strategies bound (as a JSON array) at this `?`. */
const FOREST_STRATEGY = 'c.strategy IN (SELECT value FROM json_each(?))';

/** Forests whose compaction is missing, is not a compaction, or is not of a strategy that writes one. */
function forestsWithoutCompaction(connection: SqliteConnection, strategies: string): ForestIntegrityFinding[] {
  const rows = connection
    .statement(
      `SELECT f.compaction_id AS compactionId FROM forest_states f LEFT JOIN agent_turns c ON c.id = f.compaction_id
       WHERE c.id IS NULL OR c.turn_type <> 'compaction' OR c.strategy IS NULL OR NOT (${FOREST_STRATEGY})
       ORDER BY f.compaction_id`,
    )
    .all(strategies) as FindingRow[];
  return rows.map((row) => ({ code: 'FOREST_WITHOUT_COMPACTION', compactionId: row.compactionId, nodeId: null }));
}

/** Compactions of a strategy that writes a forest, with none stored. */
function missingForests(connection: SqliteConnection, strategies: string): ForestIntegrityFinding[] {
  const rows = connection
    .statement(
      `SELECT c.id AS compactionId FROM agent_turns c LEFT JOIN forest_states f ON f.compaction_id = c.id
       WHERE c.turn_type = 'compaction' AND ${FOREST_STRATEGY} AND f.compaction_id IS NULL ORDER BY c.id`,
    )
    .all(strategies) as FindingRow[];
  return rows.map((row) => ({ code: 'FOREST_MISSING', compactionId: row.compactionId, nodeId: null }));
}

function selfCompactions(connection: SqliteConnection): ForestIntegrityFinding[] {
  const rows = connection
    .statement(
      `SELECT compaction_id AS compactionId, node_id AS nodeId FROM forest_nodes
       WHERE node_id = compaction_id OR parent_id = compaction_id ORDER BY compaction_id, position`,
    )
    .all() as FindingRow[];
  return rows.map((row) => ({ code: 'SELF_COMPACTION', compactionId: row.compactionId, nodeId: row.nodeId ?? null }));
}

/** Parent pointers naming a turn that does not exist, or one their compaction does not cover. */
function strayNodes(connection: SqliteConnection): ForestIntegrityFinding[] {
  const rows = connection
    .statement(
      `SELECT n.compaction_id AS compactionId, n.node_id AS nodeId, (t.id IS NULL OR p.id IS NULL) AS missing
       FROM forest_nodes n JOIN agent_turns c ON c.id = n.compaction_id
       LEFT JOIN agent_turns t ON t.id = n.node_id LEFT JOIN agent_turns p ON p.id = n.parent_id
       WHERE t.id IS NULL OR p.id IS NULL
          -- A compaction folded in as the forest's seed may sit after the cut: it only has to come before.
          OR (t.turn_type = 'normal' AND t.depth > c.summarized_through_depth)
          OR (t.turn_type = 'compaction' AND t.depth >= c.depth)
       ORDER BY n.compaction_id, n.position`,
    )
    .all() as Array<{ compactionId: string; nodeId: string; missing: number }>;
  return rows.map((row) => ({
    code: row.missing ? 'UNRESOLVED_ID' : 'NODE_NOT_COVERED',
    compactionId: row.compactionId,
    nodeId: row.nodeId,
  }));
}

export function forestIntegrityFindings(
  connection: SqliteConnection,
  { forestStrategies }: { forestStrategies: readonly string[] },
): ForestIntegrityFinding[] {
  // One bound JSON array, so the statement's text (and its cache entry) is the same for any list.
  const strategies = JSON.stringify(forestStrategies);
  return [
    ...forestsWithoutCompaction(connection, strategies),
    ...missingForests(connection, strategies),
    ...selfCompactions(connection),
    ...strayNodes(connection),
  ];
}
