// The compaction row, planned with no I/O: given the line as read (the window's rows, the compaction
// it starts from) and the strategy's plan, checks the cut, counts what the summary stands for, and
// computes the metadata and the tokens the turn will cost in a context. Pure, so it is tested from
// arrays (test/plan-compaction.test.ts) the way pi tests its compaction preparation; compact.ts reads,
// asks the strategy, calls this, then writes once.

import { type CompactionTrigger, InvalidInputError, type TokenCounter } from '@agent-ledger/core';
import type { StoredTurn } from '@agent-ledger/store';
import type { CompactionPlan, CompactionStrategy } from '../strategies/compaction-strategy.ts';
import { compactionPercentOf, renderSummaryBlock } from '../summary-block.ts';
import type { CompactionWrite } from './write-compaction.ts';

/** What the compaction is planned from: the line as read, and the strategy's plan of it. */
export interface CompactionRowInput {
  sessionId: string;
  /** The new turn's id. */
  id: string;
  head: StoredTurn;
  /** The compaction the window starts after, if any. */
  previous: StoredTurn | null;
  /** Depth the window's raw turns start at (0 without a previous compaction). */
  fromDepth: number;
  /** The window's normal turns, oldest first. */
  windowRows: readonly StoredTurn[];
  plan: CompactionPlan;
  strategy: Pick<CompactionStrategy, 'name' | 'renderSummary'>;
  summaryTokens: number;
  trigger: CompactionTrigger;
  timestamp: number;
  tokenCounter: TokenCounter;
}

/** The row `writeCompaction` writes (without the strategy's own rows). */
export type PlannedCompaction = Omit<CompactionWrite, 'persist'>;

export function planCompactionRow(input: CompactionRowInput): PlannedCompaction {
  const { plan, previous, windowRows } = input;
  const ids = windowRows.map((row) => row.id);
  const throughIndex = ids.indexOf(plan.summarizedThroughTurnId);
  const keptIndex = plan.firstKeptTurnId === null ? windowRows.length : ids.indexOf(plan.firstKeptTurnId);
  if (throughIndex < 0 || keptIndex !== throughIndex + 1) {
    throw new InvalidInputError(
      `Strategy ${input.strategy.name} returned a cut outside the window; nothing was written.`,
      'strategy',
    );
  }
  // Both ends of the cut are rows of the window just checked: no second read.
  const through = windowRows[throughIndex] as StoredTurn;
  const firstKept = plan.firstKeptTurnId === null ? null : (windowRows[keptIndex] as StoredTurn);
  const sources = plan.sources ?? {
    count: throughIndex + 1 + (previous ? 1 : 0),
    tokens: windowRows.slice(0, throughIndex + 1).reduce((total, row) => total + row.tokenCount, previous?.tokenCount ?? 0),
  };
  const metadata = compactionMetadata(input, sources);
  const rendered = renderSummaryBlock(
    { id: input.id, summary: plan.summary, summarizedThroughTurnId: through.id, strategy: input.strategy.name, metadata },
    input.strategy,
  );
  return {
    sessionId: input.sessionId,
    id: input.id,
    plannedHead: input.head,
    previous,
    allowLaterTurns: firstKept !== null,
    through,
    firstKept,
    tokenCount: input.tokenCounter.countText(rendered),
    mustShrink: true,
    summary: plan.summary,
    strategy: input.strategy.name,
    summarizer: plan.summarizer,
    trigger: input.trigger,
    usage: plan.usage,
    timestamp: input.timestamp,
    coversFromDepth: previous ? (previous.firstKeptTurnId ? input.fromDepth : previous.depth) : 0,
    metadata,
  };
}

/** What a compaction turn records beside its summary: its size policy, cost and provenance counts. */
function compactionMetadata(input: CompactionRowInput, sources: { count: number; tokens: number }): Record<string, unknown> {
  const { plan } = input;
  const metadata: Record<string, unknown> = {
    summaryTokens: input.summaryTokens,
    windowTurns: input.windowRows.length,
    summarizerCalls: plan.summarizerCalls ?? 1,
    compacts: sources.count,
    sourceTokens: sources.tokens,
    compactionPercent: compactionPercentOf(input.tokenCounter.countText(plan.summary), sources.tokens),
  };
  if (plan.calls) metadata.calls = plan.calls;
  // The strategy's own fields (union-find: its topics) after the ledger's, which they cannot override.
  for (const [key, value] of Object.entries(plan.metadata ?? {})) if (!(key in metadata)) metadata[key] = value;
  return metadata;
}
