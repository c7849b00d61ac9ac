// The forest's integrity checks on PostgreSQL (for `nexus doctor`): forests without their
// compaction, compactions without their forest, and forest nodes that name the compaction itself,
// name no turn, or sit past what their compaction summarized. The engine names no compaction
// strategy: the caller says which strategies' compactions write a forest, bound as a text array.

import type { ForestIntegrityFinding } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';

// A forest under no compaction, or under one whose strategy is not listed. A NULL strategy is not
// listed: `= ANY` gives NULL for it, read as false.
const FOREST_WITHOUT_COMPACTION = `
  SELECT f.compaction_id AS "compactionId" FROM forest_states f LEFT JOIN agent_turns c ON c.id = f.compaction_id
  WHERE c.id IS NULL OR c.turn_type <> 'compaction' OR NOT coalesce(c.strategy = ANY($1::text[]), false)
  ORDER BY f.compaction_id`;

// A compaction of a listed strategy without its forest.
const FOREST_MISSING = `
  SELECT c.id AS "compactionId" FROM agent_turns c LEFT JOIN forest_states f ON f.compaction_id = c.id
  WHERE c.turn_type = 'compaction' AND c.strategy = ANY($1::text[]) AND f.compaction_id IS NULL ORDER BY c.id`;

const SELF_COMPACTION = `
  SELECT compaction_id AS "compactionId", node_id AS "nodeId" FROM forest_nodes
  WHERE node_id = compaction_id OR parent_id = compaction_id ORDER BY compaction_id, position`;

const NODES_UNRESOLVED_OR_NOT_COVERED = `
  SELECT n.compaction_id AS "compactionId", n.node_id AS "nodeId", (t.id IS NULL OR p.id IS NULL) AS missing
  FROM forest_nodes n JOIN agent_turns c ON c.id = n.compaction_id
  LEFT JOIN agent_turns t ON t.id = n.node_id LEFT JOIN agent_turns p ON p.id = n.parent_id
  WHERE t.id IS NULL OR p.id IS NULL
     -- A compaction folded in as the forest's seed may sit after the cut: it only has to come before.
     OR (t.turn_type = 'normal' AND t.depth > c.summarized_through_depth)
     OR (t.turn_type = 'compaction' AND t.depth >= c.depth)
  ORDER BY n.compaction_id, n.position`;

/**
 * Forest rows that break the forest's invariants, ordered by compaction then node. `forestStrategies`
 * names the strategies whose compactions write a forest.
 */
export async function forestIntegrityFindings(
  db: PgExecutor,
  { forestStrategies }: { forestStrategies: readonly string[] },
): Promise<ForestIntegrityFinding[]> {
  const findings: ForestIntegrityFinding[] = [];
  const strategies = [[...forestStrategies]];
  for (const row of await db.query<{ compactionId: string }>(FOREST_WITHOUT_COMPACTION, strategies)) {
    findings.push({ code: 'FOREST_WITHOUT_COMPACTION', compactionId: row.compactionId, nodeId: null });
  }
  for (const row of await db.query<{ compactionId: string }>(FOREST_MISSING, strategies)) {
    findings.push({ code: 'FOREST_MISSING', compactionId: row.compactionId, nodeId: null });
  }
  for (const row of await db.query<{ compactionId: string; nodeId: string }>(SELF_COMPACTION)) {
    findings.push({ code: 'SELF_COMPACTION', compactionId: row.compactionId, nodeId: row.nodeId });
  }
  const nodes = await db.query<{ compactionId: string; nodeId: string; missing: boolean }>(NODES_UNRESOLVED_OR_NOT_COVERED);
  for (const row of nodes) {
    findings.push({
      code: row.missing ? 'UNRESOLVED_ID' : 'NODE_NOT_COVERED',
      compactionId: row.compactionId,
      nodeId: row.nodeId,
    });
  }
  return findings;
}
