// Which topics of a union-find compaction go into a context. With the incoming message as `query`,
// the topics nearest it come first; then the most recently touched. Whole topics only (a topic cut
// mid-summary misleads), within the share of the budget the raw recent turns leave them.
//
// Flat cost, cold or warm: a context reads the compaction's stored clusters (centroids and blocks)
// and the document frequencies of the query's terms, never the forest's nodes or its members'
// turns, so it costs the same after a restart at 100k turns as at 1k.

import { querySimilarity, queryTerms, storedCentroid, TfIdfModel, vectorNorm } from '@nexus/forest';
import type { LedgerContext } from '../ledger-context.ts';
import { type ForestClusterRecord, readTopicRows } from './forest-store.ts';
import { renderTopicsHeader } from './render-topics.ts';
import { activeDrops } from './topic-drops.ts';

export interface InjectedTopic {
  id: string;
  summaryVersion: number;
  members: number;
  tokens: number;
  /** Cosine similarity to the query; null when no query was given. */
  similarity: number | null;
}

export interface TopicSelection {
  summaryBlock: string;
  injected: InjectedTopic[];
  /** Live topics left out for lack of room. */
  omittedTopicIds: string[];
}

export interface TopicCandidate {
  id: string;
  tokens: number;
  touched: number;
  position: number;
  similarity: number | null;
}

/** Default share of the budget topics may take when raw turns want the rest (see docs/context.md). */
export const DEFAULT_TOPIC_SHARE = 0.5;

/**
 * Priority order, then greedy: a topic that does not fit is skipped and smaller ones after it may
 * still go in. Pure, so the policy is tested on plain arrays.
 */
export function selectTopics(
  candidates: readonly TopicCandidate[],
  room: number,
): { chosen: TopicCandidate[]; omitted: TopicCandidate[] } {
  const ranked = [...candidates].sort(
    (a, b) => (b.similarity ?? 0) - (a.similarity ?? 0) || b.touched - a.touched || a.position - b.position,
  );
  const chosen: TopicCandidate[] = [];
  const omitted: TopicCandidate[] = [];
  let used = 0;
  for (const topic of ranked) {
    if (used + topic.tokens <= room) {
      chosen.push(topic);
      used += topic.tokens;
    } else omitted.push(topic);
  }
  // Shown in stable root order: the same topics always read the same way.
  chosen.sort((a, b) => a.position - b.position);
  return { chosen, omitted };
}

export interface TopicContextInput {
  compaction: { id: string; summarizedThroughTurnId: string };
  viewSessionId: string;
  query?: string;
  /** Tokens the topics may take in all (header included); undefined: no limit. */
  room?: number;
}

export async function topicContext(ledger: LedgerContext, input: TopicContextInput): Promise<TopicSelection> {
  const drops = await activeDrops(ledger.store, input.viewSessionId);
  const rows = (await readTopicRows(ledger.store, input.compaction.id)).filter((row) => !drops.has(row.rootId));
  const similarities = input.query?.trim()
    ? await querySimilarities(ledger, input.compaction.id, input.query, rows)
    : new Map<string, number>();
  const header = renderTopicsHeader(input.compaction.id, input.compaction.summarizedThroughTurnId);
  const headerTokens = ledger.tokenCounter.countText(header);
  const room = input.room === undefined ? Number.POSITIVE_INFINITY : input.room - headerTokens;
  const { chosen, omitted } = selectTopics(
    rows.map((row) => ({
      id: row.rootId,
      // +1 for the blank line between blocks.
      tokens: row.blockTokens + 1,
      touched: row.touched,
      position: row.position,
      similarity: input.query?.trim() ? (similarities.get(row.rootId) ?? 0) : null,
    })),
    room,
  );
  const byId = new Map(rows.map((row) => [row.rootId, row]));
  const blocks = chosen.map((topic) => byId.get(topic.id)?.block ?? '');
  return {
    summaryBlock: blocks.length > 0 ? `${header}\n${blocks.join('\n\n')}` : '',
    injected: chosen.map((topic) => {
      const row = byId.get(topic.id);
      return {
        id: topic.id,
        summaryVersion: row?.summaryVersion ?? 0,
        members: row?.members ?? 0,
        tokens: row?.blockTokens ?? 0,
        similarity: topic.similarity,
      };
    }),
    omittedTopicIds: omitted.map((topic) => topic.id),
  };
}

/**
 * Cosine similarity of the query to each cluster's stored centroid, the query weighted with the
 * forest's TF-IDF statistics as of the compaction: the same figures the forest's own `nearest`
 * gives, read from one compaction's rows and one lookup per query term.
 */
async function querySimilarities(
  ledger: LedgerContext,
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
