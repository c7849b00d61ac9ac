// What a context starts from, for every engine: the engine reads a turn, the turn its
// latestCompactionId names and that compaction's first kept turn in one query; this picks them out
// of the rows.

import type { StoredTurn } from './records.ts';
import type { TurnWithCompaction } from './turn-store.ts';

/** The three rows in their places; undefined when `turnId` is not among them. */
export function placeTurnWithCompaction(turnId: string, rows: readonly StoredTurn[]): TurnWithCompaction | undefined {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const turn = byId.get(turnId);
  if (!turn) return undefined;
  const compaction = turn.latestCompactionId ? byId.get(turn.latestCompactionId) : undefined;
  const firstKept = compaction?.firstKeptTurnId ? byId.get(compaction.firstKeptTurnId) : undefined;
  return { turn, ...(compaction ? { compaction } : {}), ...(firstKept ? { firstKept } : {}) };
}
