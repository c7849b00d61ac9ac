// A summarizer for building long benchmark histories fast: it keeps the lead of each turn instead
// of ranking sentences. What the benchmarks time (contexts, forks, search) depends on a summary's
// size, not on which sentences it keeps.

import type { Summarizer } from '../../packages/summarizers/src/index.ts';

const LEAD_CHARACTERS = 200;

/**
 * The first 200 characters of each turn, in order, until the summary reaches about the target size. The extractive
 * summarizer would spend about 0.2 ms per summarized turn ranking sentences, which at a million turns is minutes of
 * build spent outside what is measured; a summary of the same size indexes the same way.
 */
export const leadTextSummarizer: Summarizer = {
  name: 'bench-lead-text',
  async summarize(input) {
    // The ledger's token estimate is about 4 characters a token; 3 keeps the summary safely under the target.
    const budget = input.targetTokens * 3;
    const parts: string[] = [];
    let length = 0;
    for (const turn of input.turns) {
      const lead = turn.text.slice(0, LEAD_CHARACTERS);
      if (length + lead.length + 1 > budget) break;
      parts.push(lead);
      length += lead.length + 1;
    }
    return { text: parts.join('\n') || 'nothing to keep', usage: { inputTokens: 0, outputTokens: 0 } };
  },
};
