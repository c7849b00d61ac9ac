// The seam between the ledger and the ways of compacting. A strategy decides what to summarize and
// produces the summary; the ledger reads the window, checks the result and writes the compaction
// turn, so every strategy's output is stored and read the same way.

import type { CompactionTrigger, CompactionTurn, NormalTurn, SessionSettings, SummarizerUsage, TokenCounter } from '@nexus/core';
import type { Summarizer } from '@nexus/summarizers';

export interface CompactionInput {
  sessionId: string;
  /** The compaction the current context starts from, if any. */
  previous: CompactionTurn | null;
  /** The raw turns of the current context, oldest first (compaction turns excluded). */
  window: readonly NormalTurn[];
  settings: SessionSettings;
  trigger: CompactionTrigger;
  instructions?: string;
  /** Size the summary should stay within, in tokens. */
  summaryTokens: number;
  summarizer: Summarizer;
  tokenCounter: TokenCounter;
}

export interface CompactionPlan {
  summary: string;
  /** The last turn of `window` the summary covers. */
  summarizedThroughTurnId: string;
  /** The first turn of `window` kept raw, or null when none is kept. */
  firstKeptTurnId: string | null;
  summarizer: string;
  usage: SummarizerUsage;
}

/**
 * Contract: `plan` never writes. It throws `NothingToCompactError` when no turn can be summarized
 * and lets a summarizer's error propagate; in both cases the ledger writes nothing.
 */
export interface CompactionStrategy {
  readonly name: string;
  plan(input: CompactionInput): Promise<CompactionPlan>;
}
