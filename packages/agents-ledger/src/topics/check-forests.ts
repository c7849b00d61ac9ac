// The forest's invariants, for `nexus doctor` (the note-store spec's list, in forest terms): every
// stored forest belongs to a union-find compaction, no compaction holds itself, every node is a turn
// the compaction covers, and replaying each session's current forest finds one compactor per turn,
// no parent cycle, and the member counts and topics its compaction turn recorded.

import { LedgerError } from '@nexus/core';
import { TopicForest } from '@nexus/forest';
import type { Problem } from '../doctor.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { loadForestState } from './forest-store.ts';

export function checkForests(ledger: LedgerContext): Problem[] {
  const { sqlite } = ledger.database;
  const problems: Problem[] = [];
  const rows = <T>(query: string) => sqlite.prepare(query).all() as T[];

  for (const row of rows<{ id: string }>(
    `SELECT f.compaction_id AS id FROM forest_states f LEFT JOIN agent_turns c ON c.id = f.compaction_id
     WHERE c.id IS NULL OR c.turn_type <> 'compaction' OR c.strategy IS NOT 'union-find' ORDER BY f.compaction_id`,
  )) {
    problems.push({
      code: 'FOREST_WITHOUT_COMPACTION',
      message: `A forest is stored for ${row.id}, which is not a union-find compaction.`,
      ids: [row.id],
    });
  }
  for (const row of rows<{ id: string }>(
    `SELECT c.id FROM agent_turns c LEFT JOIN forest_states f ON f.compaction_id = c.id
     WHERE c.turn_type = 'compaction' AND c.strategy = 'union-find' AND f.compaction_id IS NULL ORDER BY c.id`,
  )) {
    problems.push({ code: 'FOREST_MISSING', message: `Union-find compaction ${row.id} has no stored forest.`, ids: [row.id] });
  }
  for (const row of rows<{ compactionId: string; nodeId: string }>(
    `SELECT compaction_id AS compactionId, node_id AS nodeId FROM forest_nodes WHERE node_id = compaction_id OR parent_id = compaction_id`,
  )) {
    problems.push({
      code: 'SELF_COMPACTION',
      message: `Compaction ${row.compactionId} holds itself in its forest.`,
      ids: [row.compactionId],
    });
  }
  for (const row of rows<{ compactionId: string; nodeId: string; missing: number }>(
    `SELECT n.compaction_id AS compactionId, n.node_id AS nodeId, (t.id IS NULL OR p.id IS NULL) AS missing
     FROM forest_nodes n JOIN agent_turns c ON c.id = n.compaction_id
     LEFT JOIN agent_turns t ON t.id = n.node_id LEFT JOIN agent_turns p ON p.id = n.parent_id
     WHERE t.id IS NULL OR p.id IS NULL
        -- A folded-in flat compaction (the seed) may sit after the cut: it only has to come before.
        OR (t.turn_type = 'normal' AND t.depth > c.summarized_through_depth)
        OR (t.turn_type = 'compaction' AND t.depth >= c.depth)
     ORDER BY n.compaction_id, n.position`,
  )) {
    problems.push(
      row.missing
        ? {
            code: 'UNRESOLVED_ID',
            message: `A forest node of compaction ${row.compactionId} names no turn.`,
            ids: [row.compactionId, row.nodeId],
          }
        : {
            code: 'NODE_NOT_COVERED',
            message: `Compaction ${row.compactionId} holds turn ${row.nodeId}, which comes after what it summarized.`,
            ids: [row.compactionId, row.nodeId],
          },
    );
  }
  // Replaying a forest costs its size, so only the forests sessions read today are replayed.
  const current = rows<{ id: string; metadata: string | null }>(
    `SELECT DISTINCT c.id, c.metadata FROM agent_sessions s JOIN agent_turns h ON h.id = s.head_turn_id
     JOIN agent_turns c ON c.id = h.latest_compaction_id JOIN forest_states f ON f.compaction_id = c.id
     WHERE c.strategy = 'union-find' ORDER BY c.id`,
  );
  for (const compaction of current) problems.push(...checkForestReplay(ledger, compaction));
  return problems;
}

function checkForestReplay(ledger: LedgerContext, compaction: { id: string; metadata: string | null }): Problem[] {
  let forest: TopicForest;
  try {
    forest = new TopicForest({ state: loadForestState(ledger.database.db, compaction.id) });
  } catch (error) {
    if (!LedgerError.isInstance(error)) throw error;
    const ids = 'ids' in error && Array.isArray(error.ids) ? (error.ids as string[]) : [];
    const code = /graduated twice/.test(error.message)
      ? 'TWO_COMPACTORS'
      : /cycle|loops/.test(error.message)
        ? 'FOREST_CYCLE'
        : 'FOREST_BROKEN';
    return [{ code, message: error.message, ids: [...new Set([compaction.id, ...ids])] }];
  }
  const recorded =
    (JSON.parse(compaction.metadata ?? '{}') as { topics?: Array<{ id: string; summaryVersion: number; members: number }> })
      .topics ?? [];
  const stored = new Map(forest.clusters().map((cluster) => [cluster.id, cluster]));
  const mismatched = recorded.filter((topic) => {
    const cluster = stored.get(topic.id);
    return !cluster || cluster.summaryVersion !== topic.summaryVersion || cluster.members !== topic.members;
  });
  if (mismatched.length === 0) return [];
  return [
    {
      code: 'TOPICS_MISMATCH',
      message: `Compaction ${compaction.id} records topics its forest does not hold as recorded: ${mismatched.map((topic) => topic.id).join(', ')}.`,
      ids: [compaction.id, ...mismatched.map((topic) => topic.id)],
    },
  ];
}
