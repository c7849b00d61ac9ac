// Which topics of a union-find compaction go into a context: every topic whole when all fit;
// otherwise each at the depth the room allows (fit-topics.ts: the topics nearest the incoming message
// first, then the best lines of the others by value per token), within the share of the budget the
// raw recent turns leave them.
//
// Flat cost, cold or warm: a context reads the compaction's stored clusters (centroids and blocks)
// and the document frequencies of the query's terms, never the forest's nodes or its members'
// turns, so it costs the same after a restart at 100k turns as at 1k.

import type { TokenCounter } from '@agent-ledger/core';
import { querySimilarity, queryTerms, storedCentroid, TfIdfModel, vectorNorm } from '@agent-ledger/forest';
import type { StoreOperations } from '@agent-ledger/store';
import { lineSalience } from '@agent-ledger/summarizers';
import type { InjectedTopic } from '../compaction-strategy.ts';
import { fitTopics } from './fit-topics.ts';
import { type ForestClusterRecord, readTopicRows } from './forest-store.ts';
import type { LineValueCache } from './line-value-cache.ts';
import { renderTopicsHeader } from './render-topics.ts';
import { activeDrops } from './topic-drops.ts';

export type { InjectedTopic } from '../compaction-strategy.ts';

/** What choosing topics reads and keeps: the store, the token counter, the strategy's line values. */
export interface TopicReader {
  store: StoreOperations;
  tokenCounter: TokenCounter;
  lineValues: LineValueCache;
}

export interface TopicSelection {
  summaryBlock: string;
  injected: InjectedTopic[];
  /** Live topics left out for lack of room. */
  omittedTopicIds: string[];
}

export { DEFAULT_TOPIC_SHARE } from '../compaction-strategy.ts';

export interface TopicContextInput {
  compaction: { id: string; summarizedThroughTurnId: string };
  viewSessionId: string;
  query?: string;
  /** Tokens the topics may take in all (header included); undefined: no limit. */
  room?: number;
}

export async function topicContext(ledger: TopicReader, input: TopicContextInput): Promise<TopicSelection> {
  const drops = await activeDrops(ledger.store, input.viewSessionId);
  const rows = (await readTopicRows(ledger.store, input.compaction.id)).filter((row) => !drops.has(row.rootId));
  const similarities = input.query?.trim()
    ? await querySimilarities(ledger, input.compaction.id, input.query, rows)
    : new Map<string, number>();
  const header = renderTopicsHeader(input.compaction.id, input.compaction.summarizedThroughTurnId);
  const headerTokens = ledger.tokenCounter.countText(header);
  const room = input.room === undefined ? Number.POSITIVE_INFINITY : input.room - headerTokens;
  const { chosen, omittedTopicIds } = fitTopics(
    rows.map((row) => ({
      id: row.rootId,
      block: row.block,
      blockTokens: row.blockTokens,
      touched: row.touched,
      position: row.position,
      similarity: input.query?.trim() ? (similarities.get(row.rootId) ?? 0) : null,
    })),
    room,
    {
      tokenCounter: ledger.tokenCounter,
      lineValues: (texts, topicId, unit) =>
        ledger.lineValues.valuesOf({ compactionId: input.compaction.id, topicId, unit }, () =>
          lineSalience(texts, ledger.tokenCounter),
        ),
    },
  );
  const byId = new Map(rows.map((row) => [row.rootId, row]));
  return {
    summaryBlock: chosen.length > 0 ? `${header}\n${chosen.map((topic) => topic.block).join('\n\n')}` : '',
    injected: chosen.map((topic) => {
      const row = byId.get(topic.id);
      return {
        id: topic.id,
        summaryVersion: row?.summaryVersion ?? 0,
        members: row?.members ?? 0,
        tokens: topic.tokens,
        similarity: topic.similarity,
        linesLeftOut: topic.linesLeftOut,
      };
    }),
    omittedTopicIds,
  };
}

/**
 * Cosine similarity of the query to each cluster's stored centroid, the query weighted with the
 * forest's TF-IDF statistics as of the compaction: the same figures the forest's own `nearest`
 * gives, read from one compaction's rows and one lookup per query term.
 */
async function querySimilarities(
  ledger: TopicReader,
  compactionId: string,
  query: string,
  rows: readonly ForestClusterRecord[],
): Promise<Map<string, number>> {
  const similarities = new Map<string, number>();
  if (rows.length === 0) return similarities;
  const statistics = await ledger.store.documentFrequencies(compactionId, queryTerms(query));
  if (!statistics) return similarities;
  const vector = new TfIdfModel({
    documentCount: statistics.documentCount,
    documentFrequency: Object.fromEntries(statistics.frequencies),
  }).vectorize(query);
  const norm = vectorNorm(vector);
  for (const row of rows) {
    const similarity = querySimilarity(vector, norm, storedCentroid(row.centroid));
    if (similarity > 0) similarities.set(row.rootId, similarity);
  }
  return similarities;
}
