// getFullHistory over a whole history: throughput, and the live heap while it runs. It streams
// (pages of turns), so the live heap should not grow with the history's length. RSS is no measure
// of that: V8 lets garbage pile up between collections, so RSS rises with the bytes read even
// when nothing is kept. A second pass collects garbage every few thousand turns and samples what
// survives.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BuiltHistory } from './build-history.ts';
import { nowMilliseconds } from './measure.ts';
import type { BenchResult } from './report.ts';

export const FULL_HISTORY_THROUGHPUT = 'getFullHistory throughput (whole history)';
export const FULL_HISTORY_HEAP_RISE = 'getFullHistory live heap rise while streaming';
export const FULL_HISTORY_RSS_RISE = 'getFullHistory RSS rise while streaming (garbage included)';

/** About twenty samples a pass, and never fewer turns apart than a page. */
function sampleInterval(size: number): number {
  return Math.max(500, Math.floor(size / 20));
}

/** V8's gc(), without starting node with --expose-gc. */
function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export async function benchmarkFullHistory(history: BuiltHistory): Promise<BenchResult[]> {
  const size = history.turns;
  const gc = collectGarbage();
  const every = sampleInterval(size);

  gc();
  const startRss = process.memoryUsage.rss();
  let peakRss = startRss;
  let turns = 0;
  const started = nowMilliseconds();
  for await (const _turn of history.ledger.getFullHistory(history.headTurnId)) {
    turns += 1;
    if (turns % every === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }
  const seconds = (nowMilliseconds() - started) / 1000;

  gc();
  const startHeap = process.memoryUsage().heapUsed;
  let peakHeap = startHeap;
  let counted = 0;
  for await (const _turn of history.ledger.getFullHistory(history.headTurnId)) {
    counted += 1;
    if (counted % every === 0) {
      gc();
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }
  }
  return [
    { name: FULL_HISTORY_THROUGHPUT, size, unit: 'turns/s', value: turns / seconds },
    { name: FULL_HISTORY_HEAP_RISE, size, unit: 'MiB', value: (peakHeap - startHeap) / 2 ** 20 },
    { name: FULL_HISTORY_RSS_RISE, size, unit: 'MiB', value: (peakRss - startRss) / 2 ** 20 },
  ];
}
