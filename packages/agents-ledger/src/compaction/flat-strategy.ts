// The spec's flat strategy: one recursive summary. The new summary folds in the previous
// compaction's summary plus the turns since it that fall before the cut; recent turns stay raw.

import { contentText, type NormalTurn, NothingToCompactError } from '@nexus/core';
import { chooseCut } from './choose-cut.ts';
import type { CompactionInput, CompactionPlan, CompactionStrategy } from './compaction-strategy.ts';

export function createFlatStrategy(): CompactionStrategy {
  return {
    name: 'flat',
    async plan(input: CompactionInput): Promise<CompactionPlan> {
      if (input.window.length === 0) {
        throw new NothingToCompactError(input.sessionId, 'no turn was added since the last compaction.');
      }
      const { toSummarize, toKeep } = chooseCut(input.window, input.settings.keepRecentTokens, {
        force: input.trigger === 'overflow',
      });
      const last = toSummarize.at(-1);
      if (!last) {
        throw new NothingToCompactError(
          input.sessionId,
          `the ${input.window.length} turn(s) since the last compaction fit in keepRecentTokens (${input.settings.keepRecentTokens}) ` +
            'or are a tool call still waiting for its result; lower keepRecentTokens or wait for more turns.',
        );
      }
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
      return {
        summary: result.text,
        summarizedThroughTurnId: last.id,
        firstKeptTurnId: toKeep[0]?.id ?? null,
        summarizer: input.summarizer.name,
        usage: result.usage,
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
