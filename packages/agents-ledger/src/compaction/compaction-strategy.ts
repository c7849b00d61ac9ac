// The seam between the ledger and the ways of compacting. A strategy decides what to summarize and
// produces the summary; the ledger reads the window, checks the result and writes the compaction
// turn, so every strategy's output is stored and read the same way.

import type {
  CompactionTrigger,
  CompactionTurn,
  NormalTurn,
  SessionSettings,
  SummarizerUsage,
  TokenCounter,
  Turn,
} from '@nexus/core';
import type { TopicForest } from '@nexus/forest';
import type { Summarizer, SummarizerCall } from '@nexus/summarizers';
import type { TopicRecord } from '../topics/forest-store.ts';

export interface CompactionInput {
  sessionId: string;
  /** The compaction the current context starts from, if any. */
  previous: CompactionTurn | null;
  /** The raw turns of the current context, oldest first (compaction turns excluded). */
  window: readonly NormalTurn[];
  settings: SessionSettings;
  trigger: CompactionTrigger;
  /** A turn of `window` that must stay raw with everything after it (see CompactOptions). */
  keepFromTurnId?: string;
  instructions?: string;
  /** Size the summary should stay within, in tokens. */
  summaryTokens: number;
  summarizer: Summarizer;
  tokenCounter: TokenCounter;
  /**
   * The union-find forest `previous` left (a fresh one when it is not a union-find compaction),
   * with the session's dropped topics marked. Yours to change: each call loads a new copy or hands
   * over the cached one.
   */
  loadForest(): TopicForest;
  /** Stored turns by id, for strategies that need turns outside `window` (a topic's older members). */
  readTurns(ids: readonly string[]): Map<string, Turn>;
}

/** What a union-find plan adds: the forest after graduation, written with the compaction turn. */
export interface ForestOutcome {
  forest: TopicForest;
  /** The union-find compaction whose forest this continues, or null for a fresh forest. */
  previousCompactionId: string | null;
  /** A flat compaction whose summary entered the forest as a node, if any. */
  seedCompactionId: string | null;
  /** Every cluster, in root order, with its rendered block. */
  topics: TopicRecord[];
  /** Clusters whose summarizer call failed this time; they stay dirty, their members shown raw. */
  failedClusterIds: string[];
}

export interface CompactionPlan {
  summary: string;
  /** The last turn of `window` the summary covers. */
  summarizedThroughTurnId: string;
  /** The first turn of `window` kept raw, or null when none is kept. */
  firstKeptTurnId: string | null;
  /** Who wrote the summary: the summarizer's name, or what its result says wrote it (a fallback). */
  summarizer: string;
  usage: SummarizerUsage;
  /** Summarizer calls made, recorded on the compaction turn (1 when omitted). */
  summarizerCalls?: number;
  /** Each model call and fallback behind the summary, when the summarizer reports them (cost per call). */
  calls?: SummarizerCall[];
  /**
   * The direct sources the summary stands for (the note-store spec's compacts=N) and their tokens;
   * when omitted, the previous compaction and the window's turns up to the cut.
   */
  sources?: { count: number; tokens: number };
  forest?: ForestOutcome;
}

/**
 * Contract: `plan` never writes. It throws `NothingToCompactError` when no turn can be summarized
 * and lets a summarizer's error propagate; in both cases the ledger writes nothing.
 */
export interface CompactionStrategy {
  readonly name: string;
  plan(input: CompactionInput): Promise<CompactionPlan>;
}
