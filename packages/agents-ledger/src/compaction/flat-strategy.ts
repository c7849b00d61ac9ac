// The spec's flat strategy: one recursive summary. The new summary folds in the previous
// compaction's summary plus the turns since it that fall before the cut; recent turns stay raw.

import { contentText, NothingToCompactError } from '@nexus/core';
import { chooseCut } from './choose-cut.ts';
import type { CompactionInput, CompactionPlan, CompactionStrategy } from './compaction-strategy.ts';

export function createFlatStrategy(): CompactionStrategy {
  return {
    name: 'flat',
    async plan(input: CompactionInput): Promise<CompactionPlan> {
      if (input.window.length === 0) {
        throw new NothingToCompactError(input.sessionId, 'no turn was added since the last compaction.');
      }
      const { toSummarize, toKeep } = chooseCut(input.window, input.settings.keepRecentTokens);
      const last = toSummarize.at(-1);
      if (!last) throw new NothingToCompactError(input.sessionId, 'every turn is within keepRecentTokens.');
      const result = await input.summarizer.summarize({
        previousSummary: input.previous?.summary,
        turns: toSummarize.map((turn) => ({
          id: turn.id,
          role: turn.role,
          text: contentText(turn.content),
          timestamp: turn.timestamp,
        })),
        targetTokens: input.summaryTokens,
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
