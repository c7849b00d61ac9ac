// The spec's flat strategy: one recursive summary. The new summary folds in the previous
// compaction's summary plus the turns since it that fall before the cut; recent turns stay raw.

import { contentText, type NormalTurn } from '@agent-ledger/core';
import { requireCut } from '../../compaction/choose-cut.ts';
import {
  type CompactionInput,
  type CompactionPlan,
  type CompactionStrategy,
  STRATEGY_CONTRACT_VERSION,
} from '../compaction-strategy.ts';

/** The name flat compactions are recorded under; also what an imported transcript's compactions are. */
export const FLAT = 'flat';

export function createFlatStrategy(): CompactionStrategy {
  return {
    name: FLAT,
    contractVersion: STRATEGY_CONTRACT_VERSION,
    // Its compaction reads as the plain summary block (summary-block.ts): no renderSummary.
    async plan(input: CompactionInput): Promise<CompactionPlan> {
      const { toSummarize, toKeep, last } = requireCut(input);
      const result = await input.summarizer.summarize({
        targetTokens: summaryTarget(input, toSummarize),
        previousSummary: input.previous?.summary,
        turns: toSummarize.map((turn) => ({
          id: turn.id,
          role: turn.role,
          text: contentText(turn.content),
          timestamp: turn.timestamp,
        })),
        instructions: input.instructions,
      });
      const previousTokens = input.previous ? input.tokenCounter.countText(input.previous.summary) : 0;
      return {
        summary: result.text,
        summarizedThroughTurnId: last.id,
        firstKeptTurnId: toKeep[0]?.id ?? null,
        summarizer: result.writtenBy ?? input.summarizer.name,
        usage: result.usage,
        summarizerCalls: 1,
        ...(result.calls ? { calls: result.calls } : {}),
        sources: {
          count: toSummarize.length + (input.previous ? 1 : 0),
          tokens: previousTokens + toSummarize.reduce((total, turn) => total + turn.tokenCount, 0),
        },
      };
    },
  };
}

/**
 * At most `summaryTokens`. Below that cap the summary may keep all of the previous summary plus half
 * of the new turns: a summary as long as its input saves nothing, and older facts are only pushed
 * out once the cap is reached, not halved on every compaction.
 */
function summaryTarget(input: CompactionInput, toSummarize: readonly NormalTurn[]): number {
  const previousTokens = input.previous ? input.tokenCounter.countText(input.previous.summary) : 0;
  const newTokens = toSummarize.reduce((total, turn) => total + turn.tokenCount, 0);
  return Math.max(32, Math.min(input.summaryTokens, previousTokens + Math.floor(newTokens / 2)));
}
