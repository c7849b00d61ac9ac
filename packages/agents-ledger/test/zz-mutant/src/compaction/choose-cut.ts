// Where a compaction cuts the window: everything before the cut is summarized, everything after is
// kept raw. Pure, so it can be tested on plain arrays.

import type { NormalTurn } from '@nexus/core';
import { groupIntoUnits, startsWithUserText } from '../context/turn-units.ts';

export interface Cut {
  toSummarize: NormalTurn[];
  toKeep: NormalTurn[];
}

/**
 * Keeps the newest whole units whose tokens fit `keepRecentTokens` (with `force`, all but the
 * oldest unit at most), then moves the cut later, if
 * it can, so the kept part opens with a person speaking (a context that opens mid-exchange reads
 * badly to a model). The cut always falls between units, never inside a tool call.
 */
export function chooseCut(window: readonly NormalTurn[], keepRecentTokens: number, options: { force?: boolean } = {}): Cut {
  const units = groupIntoUnits(window);
  let cutUnit = units.length;
  let kept = 0;
  while (cutUnit > 0) {
    const unit = units[cutUnit - 1];
    if (!unit || kept + unit.tokens > keepRecentTokens) break;
    kept += unit.tokens;
    cutUnit -= 1;
  }
  // After an overflow the model has said the context is too long, whatever our estimate says: then
  // at least the oldest unit is summarized even if everything fits in keepRecentTokens.
  if (options.force && cutUnit === 0 && units.length > 0) cutUnit = 1;
  for (let candidate = cutUnit; candidate < units.length; candidate += 1) {
    const unit = units[candidate];
    if (unit && startsWithUserText(unit)) {
      cutUnit = candidate;
      break;
    }
  }
  return {
    toSummarize: units.slice(0, cutUnit).flatMap((unit) => unit.turns),
    toKeep: units.slice(cutUnit).flatMap((unit) => unit.turns),
  };
}
