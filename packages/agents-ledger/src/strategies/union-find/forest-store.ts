// Reads and writes the union-find forest of a compaction through the store. A forest is stored as
// the rows each union-find compaction wrote (its state, the parent pointers it set, its clusters),
// chained through the state's previousCompactionId; loading one replays the parent pointers of its
// chain, oldest first (read in one store call, `forestChain`, however long the chain), then takes the
// cluster snapshot of its own compaction. Readers that need
// only one compaction's topics (a context) read its clusters alone (topic-context.ts).

import { contentText, ForestIntegrityError } from '@agent-ledger/core';
import type { Cluster, ForestChanges, ForestConfig, ForestState, TopicForest } from '@agent-ledger/forest';
import type { StoreOperations } from '@agent-ledger/store';
import { readTurnRowsById } from '../../store/turns-by-id.ts';

/** A cluster as stored with a compaction: the forest's view plus how it is shown in a context. */
export interface TopicRecord {
  cluster: Cluster;
  block: string;
  blockTokens: number;
}

/** The stored shapes, as the store names them (@agent-ledger/store's ForestStore). */
export type ForestWriteRecord = Parameters<StoreOperations['writeForest']>[0];
export type ForestStateRecord = NonNullable<Awaited<ReturnType<StoreOperations['getForestState']>>>;
export type ForestClusterRecord = Awaited<ReturnType<StoreOperations['forestClusters']>>[number];
type ForestChainLink = Awaited<ReturnType<StoreOperations['forestChain']>>[number];

export interface ForestWrite {
  compactionId: string;
  sessionId: string;
  previousCompactionId: string | null;
  seedCompactionId: string | null;
  forest: TopicForest;
  /** The forest's changes since the forest it continues (forest.takeChanges(), taken once). */
  changes: ForestChanges;
  topics: TopicRecord[];
}

export async function loadForestState(store: StoreOperations, compactionId: string): Promise<ForestState> {
  const chain = await forestChain(store, compactionId);
  const head = (chain.at(-1) as ForestChainLink).state;
  const parents = new Map<string, string>();
  const graduatedIn = new Map<string, string>();
  const order: string[] = [];
  const documentFrequency = new Map<string, number>();
  for (const { state, nodes } of chain) {
    for (const row of nodes) {
      if (row.kind === 'graduated') {
        const earlier = graduatedIn.get(row.nodeId);
        if (earlier !== undefined) {
          throw new ForestIntegrityError(
            `Turn ${row.nodeId} graduated twice in the forest of compaction ${compactionId}: in ${earlier} and again in ${state.compactionId}; a turn has one compactor.`,
            [row.nodeId, earlier, state.compactionId],
          );
        }
        graduatedIn.set(row.nodeId, state.compactionId);
        order.push(row.nodeId);
      } else if (!parents.has(row.nodeId)) {
        throw new ForestIntegrityError(`Compaction ${state.compactionId} merges ${row.nodeId}, which never graduated.`, [
          row.nodeId,
        ]);
      }
      parents.set(row.nodeId, row.parentId);
    }
    for (const [term, count] of Object.entries(state.changedTerms)) documentFrequency.set(term, count);
  }
  const clusters = await store.forestClusters(compactionId);
  const pending = new Set(clusters.flatMap((cluster) => cluster.pending));
  const rows = await readTurnRowsById(store, [...new Set([...order, ...pending])]);
  const index = new Map(order.map((id, position) => [id, position]));
  return {
    version: 1,
    config: head.config as ForestConfig,
    clock: head.clock,
    tfidf: { documentCount: head.documentCount, documentFrequency: Object.fromEntries(documentFrequency) },
    nodes: order.map((id) => {
      const parent = index.get(parents.get(id) as string);
      const row = rows.get(id);
      if (parent === undefined || !row)
        throw new ForestIntegrityError(`Node ${id} of compaction ${compactionId} does not resolve.`, [id]);
      // What a node waiting to be summarized contributes: a turn's text, or a folded-in compaction's summary.
      const text = pending.has(id)
        ? (row.summary ?? contentText((row.content as Parameters<typeof contentText>[0]) ?? []))
        : undefined;
      return { id, parent, tokens: row.tokenCount, timestamp: row.timestamp, ...(text === undefined ? {} : { text }) };
    }),
    clusters: clusters.map((row) => ({
      id: row.rootId,
      members: row.members,
      memberTokens: row.memberTokens,
      summary: row.summary,
      summaryVersion: row.summaryVersion,
      dirty: row.dirty,
      pending: row.pending,
      absorbedSummaries: row.absorbedSummaries,
      centroid: row.centroid,
      firstTimestamp: row.firstTimestamp,
      lastTimestamp: row.lastTimestamp,
      touched: row.touched,
      dropped: row.dropped,
      generation: row.generation,
    })),
  };
}

/** The stored topics of a compaction, in root order, without loading its forest. */
export function readTopicRows(store: StoreOperations, compactionId: string): Promise<ForestClusterRecord[]> {
  return store.forestClusters(compactionId);
}

/** The rows a compaction writes for its forest: what changed since the forest it continues, and every cluster. */
export function forestWriteRecord(write: ForestWrite): ForestWriteRecord {
  const { changes } = write;
  return {
    state: {
      compactionId: write.compactionId,
      sessionId: write.sessionId,
      previousCompactionId: write.previousCompactionId,
      seedCompactionId: write.seedCompactionId,
      config: write.forest.config,
      clock: write.forest.clock,
      documentCount: changes.documentCount,
      changedTerms: changes.terms,
    },
    nodes: changes.nodes.map((node) => ({ nodeId: node.id, parentId: node.parent, kind: node.kind })),
    clusters: write.topics.map((topic, position) => {
      const { cluster } = topic;
      return {
        rootId: cluster.id,
        position,
        members: cluster.members,
        memberTokens: cluster.memberTokens,
        summary: cluster.summary,
        summaryVersion: cluster.summaryVersion,
        block: topic.block,
        blockTokens: topic.blockTokens,
        dirty: cluster.dirty,
        pending: cluster.pending,
        absorbedSummaries: cluster.absorbedSummaries,
        centroid: [...cluster.centroid].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
        firstTimestamp: cluster.firstTimestamp,
        lastTimestamp: cluster.lastTimestamp,
        touched: cluster.touched,
        generation: cluster.generation,
        dropped: cluster.dropped,
      };
    }),
  };
}

/** The forest states from the first of the chain to `compactionId`. */
/** The chain oldest first; a chain that loops or points at a compaction with no forest is broken. */
async function forestChain(store: StoreOperations, compactionId: string): Promise<ForestChainLink[]> {
  const newestFirst = await store.forestChain(compactionId);
  const seen = new Set(newestFirst.map((link) => link.state.compactionId));
  const oldest = newestFirst.at(-1);
  // Where the chain stopped short: the compaction asked for, or the one the oldest link continues.
  const id = oldest ? oldest.state.previousCompactionId : compactionId;
  if (id !== null) {
    if (seen.has(id)) throw new ForestIntegrityError(`The forest chain of compaction ${compactionId} loops at ${id}.`, [...seen]);
    throw new ForestIntegrityError(`Compaction ${id} has no stored forest.`, [id]);
  }
  return newestFirst.reverse();
}
