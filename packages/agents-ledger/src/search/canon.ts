// canon(turn): the topmost compaction that stands in for a turn on a session's line. Each flat
// compaction folds the previous one in, so once any compaction on the line has summarized the
// turn, the line's newest compaction stands in for it.

import type { CompactionTurn } from '@agent-ledger/core';
import type { StoredTurn, StoreOperations } from '@agent-ledger/store';
import { effectiveCompaction } from '../chain-arithmetic.ts';
import { findCompactionThatSummarized } from '../history.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { chainSegments, isOnChain, requireSessionRow, requireTurnRow } from '../store/chain.ts';
import { turnFromRow } from '../store/row-mapping.ts';

/** Null when no compaction on the line has summarized the turn (it is its own canonical form). */
export async function canonicalCompaction(
  ledger: LedgerContext,
  turnId: string,
  sessionId?: string,
): Promise<CompactionTurn | null> {
  const { store } = ledger;
  const turn = await requireTurnRow(store, turnId);
  // A session's search may reach its forks' own turns; those resolve on the fork's line.
  let view = await requireSessionRow(store, sessionId ?? turn.sessionId);
  if (view.id !== turn.sessionId && !(await isOnLine(store, view.headTurnId, turn)))
    view = await requireSessionRow(store, turn.sessionId);
  const compactor = await findCompactionThatSummarized(ledger, turnId, { sessionId: view.id });
  if (!compactor || !view.headTurnId) return null;
  const newest = await effectiveCompaction(store, await requireTurnRow(store, view.headTurnId), view);
  return turnFromRow(newest ?? (await requireTurnRow(store, compactor.id))) as CompactionTurn;
}

async function isOnLine(store: StoreOperations, headTurnId: string | null, turn: StoredTurn): Promise<boolean> {
  return headTurnId !== null && isOnChain(await chainSegments(store, await requireTurnRow(store, headTurnId)), turn);
}
