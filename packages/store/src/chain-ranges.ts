// The ranges of a chainRanges read, as each engine reads them: sorted by session then depth, with
// overlapping or touching ranges of a session merged, so that every turn is read once and an
// engine can walk the ranges in order (one index range scan each).

import type { ChainRange } from './turn-store.ts';

/** `ranges` sorted by session and depth, overlapping or adjacent ones merged, empty ones dropped. */
export function mergedChainRanges(ranges: readonly ChainRange[]): ChainRange[] {
  const sorted = ranges
    .filter((range) => range.fromDepth <= range.toDepth)
    .map((range) => ({ ...range }))
    .sort((left, right) =>
      left.sessionId === right.sessionId ? left.fromDepth - right.fromDepth : left.sessionId < right.sessionId ? -1 : 1,
    );
  const merged: ChainRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && last.sessionId === range.sessionId && range.fromDepth <= last.toDepth + 1) {
      last.toDepth = Math.max(last.toDepth, range.toDepth);
    } else {
      merged.push(range);
    }
  }
  return merged;
}
