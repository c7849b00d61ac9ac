// Arithmetic over a turn's chain from the columns stored on each turn: which compaction a context
// starts from, where raw turns resume, and how many tokens the context takes, each in O(1) reads
// whatever the history's length. Used by building contexts, compacting, forking and search.

import type { SessionRecord, StoredTurn, StoreOperations } from '@agent-ledger/store';
import { requireTurnRow } from './store/chain.ts';

type ViewFloor = Pick<SessionRecord, 'ignoreCompactionsThroughDepth'>;

/**
 * The compaction a turn's context starts from: the nearest one in its chain, unless the viewing
 * session ignores it (a `full` fork, or a fork of one, ignores those from before its fork point;
 * any older compaction is then older still, so none applies). `known`: that compaction's row when
 * the caller read it already (the store's turnWithCompaction).
 */
export async function effectiveCompaction(
  store: StoreOperations,
  turn: StoredTurn,
  view: ViewFloor,
  known?: StoredTurn,
): Promise<StoredTurn | null> {
  if (!turn.latestCompactionId) return null;
  const compaction =
    turn.latestCompactionId === turn.id
      ? turn
      : known?.id === turn.latestCompactionId
        ? known
        : await requireTurnRow(store, turn.latestCompactionId);
  const floor = view.ignoreCompactionsThroughDepth;
  return floor !== null && compaction.depth <= floor ? null : compaction;
}

/** Depth at which raw turns resume after a compaction. */
export async function rawStartDepth(store: StoreOperations, compaction: StoredTurn): Promise<number> {
  return compaction.firstKeptTurnId ? (await requireTurnRow(store, compaction.firstKeptTurnId)).depth : compaction.depth + 1;
}

/**
 * Tokens the context at `turn` takes before any budget is applied, from the running totals stored
 * on each turn: O(1), whatever the history's length.
 */
export async function contextTokensAt(store: StoreOperations, turn: StoredTurn, view: ViewFloor): Promise<number> {
  const compaction = await effectiveCompaction(store, turn, view);
  if (!compaction) return turn.cumulativeTokens;
  if (!compaction.firstKeptTurnId) return compaction.tokenCount + turn.cumulativeTokens - compaction.cumulativeTokens;
  const firstKept = await requireTurnRow(store, compaction.firstKeptTurnId);
  return compaction.tokenCount + turn.cumulativeTokens - firstKept.cumulativeTokens + firstKept.tokenCount;
}
