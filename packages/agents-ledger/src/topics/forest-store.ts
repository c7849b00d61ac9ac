// Reads and writes the union-find forest of a compaction. A forest is stored as the rows each
// union-find compaction wrote (forest_states, forest_nodes, forest_clusters), chained through
// forest_states.previous_compaction_id; loading one replays the parent pointers of its chain, oldest
// first, then takes the cluster snapshot of its own compaction.

import { contentText, ForestIntegrityError } from '@nexus/core';
import { forestClusters, forestNodes, forestStates, type LedgerDrizzle } from '@nexus/db';
import type { Cluster, ForestConfig, ForestState, TopicForest } from '@nexus/forest';
import { asc, eq } from 'drizzle-orm';
import { readTurnRowsById } from '../store/turns-by-id.ts';

/** A cluster as stored with a compaction: the forest's view plus how it is shown in a context. */
export interface TopicRecord {
  cluster: Cluster;
  block: string;
  blockTokens: number;
}

export interface ForestWrite {
  compactionId: string;
  sessionId: string;
  previousCompactionId: string | null;
  seedCompactionId: string | null;
  forest: TopicForest;
  topics: TopicRecord[];
}

const CHUNK = 500;

export function loadForestState(db: LedgerDrizzle, compactionId: string): ForestState {
  const chain = forestChain(db, compactionId);
  const head = chain.at(-1) as typeof forestStates.$inferSelect;
  const parents = new Map<string, string>();
  const graduatedIn = new Map<string, string>();
  const order: string[] = [];
  const documentFrequency = new Map<string, number>();
  for (const state of chain) {
    const rows = db
      .select()
      .from(forestNodes)
      .where(eq(forestNodes.compactionId, state.compactionId))
      .orderBy(asc(forestNodes.position))
      .all();
    for (const row of rows) {
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
    for (const [term, count] of Object.entries(state.changedTerms as Record<string, number>)) documentFrequency.set(term, count);
  }
  const turnFacts = readTurnFacts(db, order);
  const index = new Map(order.map((id, position) => [id, position]));
  const clusters = db
    .select()
    .from(forestClusters)
    .where(eq(forestClusters.compactionId, compactionId))
    .orderBy(asc(forestClusters.position))
    .all();
  const pendingTexts = readTexts(
    db,
    clusters.flatMap((cluster) => cluster.pending as string[]),
  );
  return {
    version: 1,
    config: head.config as ForestConfig,
    clock: head.clock,
    tfidf: { documentCount: head.documentCount, documentFrequency: Object.fromEntries(documentFrequency) },
    nodes: order.map((id) => {
      const parent = index.get(parents.get(id) as string);
      const facts = turnFacts.get(id);
      if (parent === undefined || !facts)
        throw new ForestIntegrityError(`Node ${id} of compaction ${compactionId} does not resolve.`, [id]);
      const text = pendingTexts.get(id);
      return { id, parent, tokens: facts.tokens, timestamp: facts.timestamp, ...(text === undefined ? {} : { text }) };
    }),
    clusters: clusters.map((row) => ({
      id: row.rootId,
      members: row.members,
      memberTokens: row.memberTokens,
      summary: row.summary,
      summaryVersion: row.summaryVersion,
      dirty: row.dirty,
      pending: row.pending as string[],
      absorbedSummaries: row.absorbedSummaries as string[],
      centroid: row.centroid as Array<[string, number]>,
      firstTimestamp: row.firstTimestamp,
      lastTimestamp: row.lastTimestamp,
      touched: row.touched,
      dropped: row.dropped,
      generation: row.generation,
    })),
  };
}

/** The stored topics of a compaction, in root order, without loading its forest. */
export function readTopicRows(db: LedgerDrizzle, compactionId: string) {
  return db
    .select()
    .from(forestClusters)
    .where(eq(forestClusters.compactionId, compactionId))
    .orderBy(asc(forestClusters.position))
    .all();
}

/** Writes a compaction's forest rows; call inside the transaction that writes the compaction turn. */
export function writeForest(db: LedgerDrizzle, write: ForestWrite): void {
  const changes = write.forest.takeChanges();
  db.insert(forestStates)
    .values({
      compactionId: write.compactionId,
      sessionId: write.sessionId,
      previousCompactionId: write.previousCompactionId,
      seedCompactionId: write.seedCompactionId,
      config: write.forest.config,
      clock: write.forest.clock,
      documentCount: changes.documentCount,
      changedTerms: changes.terms,
    })
    .run();
  for (let start = 0; start < changes.nodes.length; start += CHUNK) {
    db.insert(forestNodes)
      .values(
        changes.nodes.slice(start, start + CHUNK).map((node, offset) => ({
          compactionId: write.compactionId,
          nodeId: node.id,
          parentId: node.parent,
          kind: node.kind,
          position: start + offset,
        })),
      )
      .run();
  }
  write.topics.forEach((topic, position) => {
    const { cluster } = topic;
    db.insert(forestClusters)
      .values({
        compactionId: write.compactionId,
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
      })
      .run();
  });
}

/** The forest_states rows from the first of the chain to `compactionId`. */
function forestChain(db: LedgerDrizzle, compactionId: string) {
  const newestFirst: Array<typeof forestStates.$inferSelect> = [];
  const seen = new Set<string>();
  let id: string | null = compactionId;
  while (id !== null) {
    if (seen.has(id)) throw new ForestIntegrityError(`The forest chain of compaction ${compactionId} loops at ${id}.`, [...seen]);
    seen.add(id);
    const row = db.select().from(forestStates).where(eq(forestStates.compactionId, id)).get();
    if (!row) throw new ForestIntegrityError(`Compaction ${id} has no stored forest.`, [id]);
    newestFirst.push(row);
    id = row.previousCompactionId;
  }
  return newestFirst.reverse();
}

function readTurnFacts(db: LedgerDrizzle, ids: readonly string[]): Map<string, { tokens: number; timestamp: number }> {
  const facts = new Map<string, { tokens: number; timestamp: number }>();
  for (const [id, row] of readTurnRowsById(db, ids)) facts.set(id, { tokens: row.tokenCount, timestamp: row.timestamp });
  return facts;
}

/** What a node contributes to a summary: a turn's text, or a folded-in compaction's summary. */
function readTexts(db: LedgerDrizzle, ids: readonly string[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [id, row] of readTurnRowsById(db, ids)) {
    texts.set(id, row.summary ?? contentText((row.content as Parameters<typeof contentText>[0]) ?? []));
  }
  return texts;
}
