// A summarizer wrapper that counts calls and the tokens each result's usage reports, for the
// scripts that compare what strategies cost (compaction-cost.ts, eval/).

import type { Summarizer } from '../packages/summarizers/src/index.ts';

export interface CountingSummarizer extends Summarizer {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export function countingSummarizer(inner: Summarizer): CountingSummarizer {
  const counter: CountingSummarizer = {
    name: inner.name,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    async summarize(input) {
      const result = await inner.summarize(input);
      counter.calls += 1;
      counter.inputTokens += result.usage.inputTokens;
      counter.outputTokens += result.usage.outputTokens;
      return result;
    },
  };
  return counter;
}
