// Groups consecutive turns into units that must stay together: a turn that calls tools and the
// turns that carry those tools' results. Both the compaction cut and context trimming move in
// whole units, which is how a tool_use is never separated from its tool_result.

import { type NormalTurn, toolResultIds, toolUseIds } from '@agent-ledger/core';

export interface TurnUnit {
  turns: NormalTurn[];
  tokens: number;
  /** A tool call in it has no result (yet, for the newest unit; an abandoned call for older ones). */
  awaitingResults: boolean;
}

export function groupIntoUnits(turns: readonly NormalTurn[]): TurnUnit[] {
  const units: TurnUnit[] = [];
  let current: TurnUnit | null = null;
  const open = new Set<string>();
  for (const turn of turns) {
    const answers = toolResultIds(turn.content);
    const continuesCurrent = current !== null && open.size > 0 && answers.some((id) => open.has(id));
    if (!continuesCurrent || current === null) {
      current = { turns: [], tokens: 0, awaitingResults: false };
      units.push(current);
      open.clear();
    }
    current.turns.push(turn);
    current.tokens += turn.tokenCount;
    for (const id of answers) open.delete(id);
    for (const id of toolUseIds(turn.content)) open.add(id);
    current.awaitingResults = open.size > 0;
  }
  return units;
}

/** A unit a context can start with: it opens with a person speaking, not a tool result. */
export function startsWithUserText(unit: TurnUnit): boolean {
  const first = unit.turns[0];
  return first !== undefined && first.role === 'user' && toolResultIds(first.content).length === 0;
}
