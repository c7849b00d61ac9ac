// The one interface every summarizer implements: the offline extractive default and model-backed
// ones. Compaction strategies depend on this interface only.

import type { SummarizerUsage } from '@agent-ledger/core';

/** A turn as a summarizer sees it: its id (so a summary can cite it), who spoke, and its text. */
export interface SummarizableTurn {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  timestamp?: number;
}

export interface SummarizeInput {
  /** The summary of everything before `turns`, to fold into the new one. */
  previousSummary?: string;
  turns: SummarizableTurn[];
  /** The size the summary should not exceed, in tokens of the summarizer's counter. */
  targetTokens: number;
  /** What a person asked the summary to keep ("keep the schema decisions"). */
  instructions?: string;
}

/** A sentence the summary kept, with the turn it came from, so a claim can be traced. */
export interface SummarySource {
  turnId: string;
  text: string;
}

/** One call a summarizer made (a model request, or a fallback's run), recorded on the compaction turn. */
export interface SummarizerCall {
  summarizer: string;
  model?: string;
  inputTokens: number;
  outputTokens: number;
  /** Why this call's output was not used (`refusal`, `empty`, `did-not-shrink`, `api-error: …`). */
  rejected?: string;
}

export interface SummarizeResult {
  text: string;
  /** Everything this summary cost, including calls whose output was rejected. */
  usage: SummarizerUsage;
  /** Present when the summarizer can say where each kept sentence came from. */
  sources?: SummarySource[];
  /** Who wrote `text` when it is not the summarizer asked (a fallback), e.g. `extractive`. */
  writtenBy?: string;
  /** The calls behind this summary, when the summarizer keeps a record (model-backed ones do). */
  calls?: SummarizerCall[];
}

/**
 * Contract: `summarize` resolves with a summary no larger than `targetTokens` (best effort for
 * model-backed summarizers, exact for the extractive one) and rejects with a `SummarizerError`
 * when it cannot produce one. It never writes anything: the caller decides what to store, so a
 * failed call leaves the ledger as it was.
 */
export interface Summarizer {
  readonly name: string;
  summarize(input: SummarizeInput): Promise<SummarizeResult>;
}
