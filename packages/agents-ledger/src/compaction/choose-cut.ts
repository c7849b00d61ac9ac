// Where a compaction cuts the window: everything before the cut is summarized, everything after is
// kept raw. Pure, so it can be tested on plain arrays.

import { type NormalTurn, NothingToCompactError } from '@agent-ledger/core';
import { groupIntoUnits, startsWithUserText } from '../context/turn-units.ts';
import type { CompactionInput } from '../strategies/compaction-strategy.ts';

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
export function chooseCut(
  window: readonly NormalTurn[],
  keepRecentTokens: number,
  options: { force?: boolean; keepFromTurnId?: string } = {},
): Cut {
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
  // A tool call still waiting for its result stays raw: its result will arrive as a raw turn.
  if (units.at(-1)?.awaitingResults) cutUnit = Math.min(cutUnit, units.length - 1);
  for (let candidate = cutUnit; candidate < units.length; candidate += 1) {
    const unit = units[candidate];
    if (unit && startsWithUserText(unit)) {
      cutUnit = candidate;
      break;
    }
  }
  // Last, so moving the cut to a person's words cannot carry it past the turn being answered.
  // The turn the caller is answering stays raw, with its unit and everything after.
  const keepFrom = options.keepFromTurnId;
  const keptUnit = keepFrom === undefined ? -1 : units.findIndex((unit) => unit.turns.some((turn) => turn.id === keepFrom));
  if (keptUnit >= 0) cutUnit = Math.min(cutUnit, keptUnit);
  return {
    toSummarize: units.slice(0, cutUnit).flatMap((unit) => unit.turns),
    toKeep: units.slice(cutUnit).flatMap((unit) => unit.turns),
  };
}

/**
 * The cut every strategy starts from: the oldest turns go (into a summary, or graduate into the
 * forest), the newest `keepRecentTokens` stay raw. Token-driven on purpose: compaction fires on
 * tokens, so a cut counted in messages could summarize nothing and fire again forever.
 */
export function requireCut(input: CompactionInput): Cut & { last: NormalTurn } {
  if (input.window.length === 0) {
    throw new NothingToCompactError(input.sessionId, 'no turn was added since the last compaction.');
  }
  const cut = chooseCut(input.window, input.settings.keepRecentTokens, {
    force: input.trigger === 'overflow',
    ...(input.keepFromTurnId ? { keepFromTurnId: input.keepFromTurnId } : {}),
  });
  const last = cut.toSummarize.at(-1);
  if (!last) {
    throw new NothingToCompactError(
      input.sessionId,
      `the ${input.window.length} turn(s) since the last compaction fit in keepRecentTokens (${input.settings.keepRecentTokens}) ` +
        'or are a tool call still waiting for its result; lower keepRecentTokens or wait for more turns.',
    );
  }
  return { ...cut, last };
}
