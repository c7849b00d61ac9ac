// History building: wall time, throughput, compactions, and per-turn wall and CPU cost at the end of the history, for one size.

import type { BuiltHistory } from './build-history.ts';
import type { BenchResult } from './report.ts';

export const BUILD_TIME = 'history build wall time';
export const BUILD_THROUGHPUT = 'history build throughput';
export const BUILD_COMPACTIONS = 'history build compactions';
export const BUILD_TAIL_COST = 'history build wall time per turn (last 10%)';
export const BUILD_TAIL_CPU = 'history build CPU time per turn (last 10%)';
export const BUILD_PEAK_RSS = 'history build peak RSS of the process';

/** Results that should not grow with history size: compared to the smallest size. */
export const HISTORY_BUILDING_SIZE_INDEPENDENT = [BUILD_TAIL_COST, BUILD_TAIL_CPU];

export function historyBuildingResults(history: BuiltHistory): BenchResult[] {
  const size = history.turns;
  const seconds = history.wallMilliseconds / 1000;
  return [
    { name: BUILD_TIME, size, unit: 's', value: seconds },
    { name: BUILD_THROUGHPUT, size, unit: 'turns/s', value: size / seconds },
    { name: BUILD_COMPACTIONS, size, unit: 'count', value: history.compactions },
    { name: BUILD_TAIL_COST, size, unit: 'µs/turn', value: history.tailMillisecondsPerTurn * 1000 },
    { name: BUILD_TAIL_CPU, size, unit: 'µs/turn', value: history.tailCpuMillisecondsPerTurn * 1000 },
    { name: BUILD_PEAK_RSS, size, unit: 'MiB', value: history.peakRssBytes / 2 ** 20 },
  ];
}
