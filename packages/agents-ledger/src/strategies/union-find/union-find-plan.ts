// Union-find's plan, with no store I/O (its summarizer calls aside). The turns before the cut
// graduate into the forest one at a time, oldest first (no summarizer call); then each dirty cluster
// gets one summarizer call folding its previous summary with its new members. The topics split twice
// the summary budget (contexts choose from them); the compaction turn's summary is the topics fitted
// to the budget as a context without a query fits them, for readers that know nothing of topics.

import {
  contentText,
  isCompaction,
  LedgerError,
  type NormalTurn,
  SummarizerError,
  type SummarizerUsage,
  type Turn,
} from '@agent-ledger/core';
import type { ClusterSummaryRequest, ForestChanges, TopicForest } from '@agent-ledger/forest';
import { lineSalience, type SummarizerCall } from '@agent-ledger/summarizers';
import { requireCut } from '../../compaction/choose-cut.ts';
import type { CompactionInput, CompactionPlan } from '../compaction-strategy.ts';
import { fitTopics } from './fit-topics.ts';
import type { TopicRecord } from './forest-store.ts';
import { renderTopicBlock } from './render-topics.ts';
import { UNION_FIND } from './union-find-caches.ts';

/** What union-find reads before planning: the forest to extend and the stored turns it may need. */
export interface UnionFindState {
  /** The forest `previous` left (a fresh one when it is not a union-find compaction), drops marked. */
  forest: TopicForest;
  /** Turns outside the window a topic still waits to summarize (older pending members), by id. */
  turns: Map<string, Turn>;
  /** Set by the plan: the forest after graduation, written with the compaction turn. */
  outcome?: ForestOutcome;
}

/** What a union-find plan adds: the forest after graduation, written with the compaction turn. */
export interface ForestOutcome {
  forest: TopicForest;
  /** What changed in the forest since the one it continues (taken once, when planned). */
  changes: ForestChanges;
  /** The union-find compaction whose forest this continues, or null for a fresh forest. */
  previousCompactionId: string | null;
  /** A flat compaction whose summary entered the forest as a node, if any. */
  seedCompactionId: string | null;
  /** Every cluster, in root order, with its rendered block. */
  topics: TopicRecord[];
  /** Clusters whose summarizer call failed this time; they stay dirty, their members shown raw. */
  failedClusterIds: string[];
}

/**
 * The forest keeps this many times the summary budget across its topics, since no one context shows
 * them all: a context shows each topic as deep as its room allows (fit-topics.ts), so a larger room,
 * or a query that names one topic, finds more of it written. Measured on LoCoMo (agnostic ER_frac,
 * mean of 13 budgets from 1k to 8k, docs/benchmarks.md): with contexts choosing whole lines, 2 was
 * best (3 lost 10 points at 8k: the contexts' line choice is worse than the summarizer's); with
 * contexts choosing sentences, 3 scores 40.9 on that mean against 40.5 for 2 (40.3 before) and
 * loses nothing at 8k. The summarizer writes about 40% more for it.
 */
export const TOPIC_STORE_FACTOR = 3;

/** Below this a topic summary is a header with one clipped line. */
const MINIMUM_TOPIC_TOKENS = 48;

export async function planUnionFind(input: CompactionInput<UnionFindState>): Promise<CompactionPlan<UnionFindState>> {
  const { toSummarize, toKeep, last } = requireCut(input);
  const { forest } = input.state;
  const previous = input.previous;
  const { known, seedCompactionId } = graduateWindow(input, toSummarize);
  const summarized = await summarizeDirtyTopics(input, known);
  const topics = renderTopics(input, forest, known);
  const live = topics.filter((topic) => !topic.cluster.dropped);
  const outcome: ForestOutcome = {
    forest,
    changes: forest.takeChanges(),
    previousCompactionId: previous?.strategy === UNION_FIND ? previous.id : null,
    seedCompactionId,
    topics,
    failedClusterIds: summarized.failedClusterIds,
  };
  return {
    summary: standingSummary(input, live),
    summarizedThroughTurnId: last.id,
    firstKeptTurnId: toKeep[0]?.id ?? null,
    summarizer: summarized.writers.size > 0 ? [...summarized.writers].join('+') : input.summarizer.name,
    usage: summarized.usage,
    summarizerCalls: summarized.calls,
    ...(summarized.modelCalls.length > 0 ? { calls: summarized.modelCalls } : {}),
    sources: {
      count: live.reduce((total, topic) => total + topic.cluster.members, 0),
      tokens: live.reduce((total, topic) => total + topic.cluster.memberTokens, 0),
    },
    metadata: {
      topics: live.map(({ cluster }) => ({ id: cluster.id, summaryVersion: cluster.summaryVersion, members: cluster.members })),
      ...(outcome.failedClusterIds.length > 0 ? { unsummarizedTopics: outcome.failedClusterIds } : {}),
    },
    state: { ...input.state, outcome },
  };
}

/** Graduates the turns before the cut (and a flat summary before this forest) into the forest. */
function graduateWindow(
  input: CompactionInput<UnionFindState>,
  toSummarize: readonly NormalTurn[],
): { known: Map<string, Turn>; seedCompactionId: string | null } {
  const { forest } = input.state;
  const previous = input.previous;
  // A flat summary before this forest enters it as one node: its facts join the topics they match.
  const seedCompactionId = previous && previous.strategy !== UNION_FIND ? previous.id : null;
  const known = new Map<string, Turn>(input.state.turns);
  for (const turn of toSummarize) known.set(turn.id, turn);
  if (previous && seedCompactionId) {
    known.set(previous.id, previous);
    forest.graduate({ id: previous.id, text: previous.summary, tokens: previous.tokenCount, timestamp: previous.timestamp });
  }
  for (const turn of toSummarize) {
    forest.graduate({ id: turn.id, text: contentText(turn.content), tokens: turn.tokenCount, timestamp: turn.timestamp });
  }
  return { known, seedCompactionId };
}

/** One summarizer call per dirty topic; refuses only when every call failed. */
async function summarizeDirtyTopics(input: CompactionInput<UnionFindState>, known: Map<string, Turn>) {
  const { forest } = input.state;
  const usage: SummarizerUsage = { inputTokens: 0, outputTokens: 0 };
  const modelCalls: SummarizerCall[] = [];
  const writers = new Set<string>();
  let calls = 0;
  const topicCaps = summaryShares(forest, TOPIC_STORE_FACTOR * input.summaryTokens);
  const resolved = await forest.resolveDirty(async (request) => {
    calls += 1;
    const cap = topicCaps.get(request.clusterId) ?? MINIMUM_TOPIC_TOKENS;
    const result = await input.summarizer.summarize(summaryRequest(input, request, known, cap));
    usage.inputTokens += result.usage.inputTokens;
    usage.outputTokens += result.usage.outputTokens;
    modelCalls.push(...(result.calls ?? []));
    writers.add(result.writtenBy ?? input.summarizer.name);
    return result.text;
  });
  const firstFailure = resolved.failed[0];
  if (firstFailure && resolved.summarized.length === 0) throw asSummarizerError(firstFailure.error, input.summarizer.name);
  return { usage, calls, modelCalls, writers, failedClusterIds: resolved.failed.map((failure) => failure.clusterId) };
}

/**
 * The summary every topic-unaware reader sees, and what the turn's tokenCount counts: the topics
 * fitted to summaryTokens (every topic whole if all fit, else each by its best lines). The rest stays
 * in the forest, where a larger budget or a query in buildContext reaches it.
 */
function standingSummary(input: CompactionInput<UnionFindState>, live: readonly TopicRecord[]): string {
  const standing = fitTopics(
    live.map((topic, position) => ({
      id: topic.cluster.id,
      block: topic.block,
      blockTokens: topic.blockTokens,
      touched: topic.cluster.touched,
      position,
      similarity: null,
    })),
    input.summaryTokens,
    { tokenCounter: input.tokenCounter, lineValues: (lines) => lineSalience(lines, input.tokenCounter) },
  ).chosen;
  return standing.map((topic) => topic.block).join('\n\n');
}

/**
 * Each live topic's share of the summary budget, in proportion to the tokens it stands for: a
 * topic of 120 turns gets more room than one of 2. An even split squeezed a big topic into a few
 * lines while one-line topics kept theirs (measured on devops-200: recall fell behind flat).
 */
function summaryShares(forest: TopicForest, summaryTokens: number): Map<string, number> {
  const live = forest.clusters().filter((cluster) => !cluster.dropped);
  const total = live.reduce((sum, cluster) => sum + cluster.memberTokens, 0);
  return new Map(
    live.map((cluster) => [
      cluster.id,
      Math.max(MINIMUM_TOPIC_TOKENS, total === 0 ? 0 : Math.floor((summaryTokens * cluster.memberTokens) / total)),
    ]),
  );
}

/** Topics whose whole input (plus citations) is at most this keep it all. */
const SMALL_TOPIC_TOKENS = 96;
/** `[t_xxxxxxxxxxxx] ` costs about this much per cited line. */
const CITATION_ROOM = 16;

/** One cluster's call: its previous summaries fold in, only its new members are sent. */
function summaryRequest(
  input: CompactionInput<UnionFindState>,
  request: ClusterSummaryRequest,
  known: Map<string, Turn>,
  topicCap: number,
) {
  const previousSummaries = [...request.previousSummaries];
  const turns: Array<{ id: string; role: 'user' | 'assistant'; text: string; timestamp: number }> = [];
  let cap = topicCap;
  for (const member of request.turns) {
    const turn = known.get(member.id);
    if (turn && isCompaction(turn)) {
      // A folded-in flat summary is a summary already: it joins the previous summaries, and the
      // topic may keep it whole (up to the compaction's budget) the first time, not squeeze the
      // whole earlier conversation into one topic's share at once.
      previousSummaries.push(turn.summary);
      cap = Math.max(cap, Math.min(input.summaryTokens, input.tokenCounter.countText(turn.summary)));
    } else turns.push({ id: member.id, role: turn?.role ?? 'user', text: member.text, timestamp: member.timestamp });
  }
  const previousTokens = previousSummaries.reduce((total, summary) => total + input.tokenCounter.countText(summary), 0);
  const newTokens = turns.reduce((total, turn) => total + input.tokenCounter.countText(turn.text), 0);
  // As flat: keep the old summary and half the new, within the topic's share of the summary budget.
  // A small topic keeps its input whole (plus room for the [id] citations): halving one short
  // sentence leaves nothing, since sentences are kept whole or not at all.
  const smallInputFloor = Math.min(cap, previousTokens + newTokens + CITATION_ROOM);
  return {
    targetTokens: Math.max(
      32,
      smallInputFloor <= SMALL_TOPIC_TOKENS ? smallInputFloor : 0,
      Math.min(cap, previousTokens + Math.floor(newTokens / 2)),
    ),
    previousSummary: previousSummaries.length > 0 ? previousSummaries.join('\n') : undefined,
    turns,
    instructions: input.instructions,
  };
}

function renderTopics(input: CompactionInput<UnionFindState>, forest: TopicForest, known: Map<string, Turn>): TopicRecord[] {
  return forest.clusters().map((cluster) => {
    const pendingLines = cluster.pending.map((id) => {
      const turn = known.get(id);
      const text = !turn ? '' : isCompaction(turn) ? turn.summary : contentText(turn.content);
      return { id, text };
    });
    const { block } = renderTopicBlock({ ...cluster, pendingLines: cluster.dirty ? pendingLines : [] }, input.tokenCounter);
    return { cluster, block, blockTokens: input.tokenCounter.countText(block) };
  });
}

function asSummarizerError(error: unknown, summarizer: string): Error {
  if (LedgerError.isInstance(error)) return error;
  return new SummarizerError(`Every topic's summarizer call failed; nothing was written: ${String(error)}`, summarizer, {
    cause: error,
  });
}
