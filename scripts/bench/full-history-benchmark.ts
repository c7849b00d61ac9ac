// getFullHistory over a whole history: throughput, and how far resident memory rises while it runs.
// It streams (pages of turns), so the rise should not grow with the history's length.

import type { BuiltHistory } from './build-history.ts';
import { nowMilliseconds } from './measure.ts';
import type { BenchResult } from './report.ts';

export const FULL_HISTORY_THROUGHPUT = 'getFullHistory throughput (whole history)';
export const FULL_HISTORY_RSS_RISE = 'getFullHistory RSS rise while streaming';

/** Samples the process's RSS every this many turns (reading it costs a system call). */
const RSS_SAMPLE_EVERY = 1000;

export async function benchmarkFullHistory(history: BuiltHistory): Promise<BenchResult[]> {
  const size = history.turns;
  const startRss = process.memoryUsage.rss();
  let peakRss = startRss;
  let turns = 0;
  const started = nowMilliseconds();
  for await (const _turn of history.ledger.getFullHistory(history.headTurnId)) {
    turns += 1;
    if (turns % RSS_SAMPLE_EVERY === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }
  const seconds = (nowMilliseconds() - started) / 1000;
  return [
    { name: FULL_HISTORY_THROUGHPUT, size, unit: 'turns/s', value: turns / seconds },
    { name: FULL_HISTORY_RSS_RISE, size, unit: 'MiB', value: (peakRss - startRss) / 2 ** 20 },
  ];
}
