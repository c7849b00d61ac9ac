// The forest's invariants, for `nexus doctor` (the note-store spec's list, in forest terms): every
// stored forest belongs to a union-find compaction, no compaction holds itself, every node is a turn
// the compaction covers, and replaying each session's current forest finds one compactor per turn,
// no parent cycle, and the member counts and topics its compaction turn recorded.

import { ForestIntegrityError, LedgerError } from '@agent-ledger/core';
import { TopicForest } from '@agent-ledger/forest';
import type { StoreOperations } from '@agent-ledger/store';
import type { Problem } from '../../problem.ts';
import { loadForestState } from './forest-store.ts';
import { UNION_FIND } from './union-find-caches.ts';

export async function checkForests(ledger: { store: StoreOperations }): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const finding of await ledger.store.forestIntegrityFindings({ forestStrategies: [UNION_FIND] })) {
    const { compactionId, nodeId } = finding;
    switch (finding.code) {
      case 'FOREST_WITHOUT_COMPACTION':
        problems.push({
          code: finding.code,
          message: `A forest is stored for ${compactionId}, which is not a union-find compaction.`,
          ids: [compactionId],
        });
        break;
      case 'FOREST_MISSING':
        problems.push({
          code: finding.code,
          message: `Union-find compaction ${compactionId} has no stored forest.`,
          ids: [compactionId],
        });
        break;
      case 'SELF_COMPACTION':
        problems.push({
          code: finding.code,
          message: `Compaction ${compactionId} holds itself in its forest.`,
          ids: [compactionId],
        });
        break;
      case 'UNRESOLVED_ID':
        problems.push({
          code: finding.code,
          message: `A forest node of compaction ${compactionId} names no turn.`,
          ids: [compactionId, nodeId as string],
        });
        break;
      case 'NODE_NOT_COVERED':
        problems.push({
          code: finding.code,
          message: `Compaction ${compactionId} holds turn ${nodeId}, which comes after what it summarized.`,
          ids: [compactionId, nodeId as string],
        });
        break;
    }
  }
  // Replaying a forest costs its size, so only the forests sessions read today are replayed.
  for (const compaction of await ledger.store.currentForestCompactions())
    problems.push(...(await checkForestReplay(ledger, compaction)));
  return problems;
}

async function checkForestReplay(
  ledger: { store: StoreOperations },
  compaction: { compactionId: string; metadata: unknown },
): Promise<Problem[]> {
  const id = compaction.compactionId;
  let forest: TopicForest;
  try {
    forest = new TopicForest({ state: await loadForestState(ledger.store, id) });
  } catch (error) {
    if (!LedgerError.isInstance(error)) throw error;
    const ids = ForestIntegrityError.isInstance(error) ? error.ids : [];
    const code = /graduated twice/.test(error.message)
      ? 'TWO_COMPACTORS'
      : /cycle|loops/.test(error.message)
        ? 'FOREST_CYCLE'
        : 'FOREST_BROKEN';
    return [{ code, message: error.message, ids: [...new Set([id, ...ids])] }];
  }
  const recorded =
    ((compaction.metadata ?? {}) as { topics?: Array<{ id: string; summaryVersion: number; members: number }> }).topics ?? [];
  const stored = new Map(forest.clusters().map((cluster) => [cluster.id, cluster]));
  const mismatched = recorded.filter((topic) => {
    const cluster = stored.get(topic.id);
    return !cluster || cluster.summaryVersion !== topic.summaryVersion || cluster.members !== topic.members;
  });
  if (mismatched.length === 0) return [];
  return [
    {
      code: 'TOPICS_MISMATCH',
      message: `Compaction ${id} records topics its forest does not hold as recorded: ${mismatched.map((topic) => topic.id).join(', ')}.`,
      ids: [id, ...mismatched.map((topic) => topic.id)],
    },
  ];
}
