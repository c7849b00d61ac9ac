// Where a new forest goes among the lineages (the runs of forests one session wrote one after
// another), decided the same way by every engine once it has read the previous forest's place.

import { ForestIntegrityError } from '@agent-ledger/core';
import type { ForestStateRecord } from './forest-store.ts';

/** A forest's place: its lineage, the lineage that one continues, and its number in it. */
export interface LineagePlace {
  lineageId: string;
  lineageParentId: string | null;
  sequence: number;
}

/** The previous forest's place as an engine reads it, with its session and its lineage's newest number. */
export interface PreviousLineage extends LineagePlace {
  sessionId: string;
  /** The lineage's newest sequence. */
  tip: number;
}

/**
 * A forest continues its previous one's lineage when both belong to one session and the previous
 * one is still the lineage's newest; otherwise (a fork's first forest, a fresh one) it starts a
 * lineage of its own, pointing at the forest it continues. `previous` is the place of
 * `state.previousCompactionId` (undefined when it has none stored: a broken chain, refused).
 */
export function lineagePlaceOf(state: ForestStateRecord, previous: PreviousLineage | undefined): LineagePlace {
  const own = { lineageId: state.compactionId, lineageParentId: state.previousCompactionId, sequence: 0 };
  if (state.previousCompactionId === null) return own;
  if (!previous) {
    throw new ForestIntegrityError(
      `Compaction ${state.compactionId} continues the forest of ${state.previousCompactionId}, which has none stored.`,
      [state.compactionId, state.previousCompactionId],
    );
  }
  if (previous.sessionId !== state.sessionId || previous.sequence !== previous.tip) return own;
  return { lineageId: previous.lineageId, lineageParentId: previous.lineageParentId, sequence: previous.sequence + 1 };
}
