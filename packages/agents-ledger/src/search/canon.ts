// canon(turn): the topmost compaction that stands in for a turn on a session's line. Each flat
// compaction folds the previous one in, so once any compaction on the line has summarized the
// turn, the line's newest compaction stands in for it.

import type { CompactionTurn } from '@nexus/core';
import type { AgentTurnRow, LedgerDrizzle } from '@nexus/db';
import { effectiveCompaction } from '../build-context.ts';
import { findCompactionThatSummarized } from '../history.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { chainSegments, isOnChain, requireSessionRow, requireTurnRow } from '../store/chain.ts';
import { turnFromRow } from '../store/row-mapping.ts';

/** Null when no compaction on the line has summarized the turn (it is its own canonical form). */
export function canonicalCompaction(ledger: LedgerContext, turnId: string, sessionId?: string): CompactionTurn | null {
  const db = ledger.database.db;
  const turn = requireTurnRow(db, turnId);
  // A session's search may reach its forks' own turns; those resolve on the fork's line.
  let view = requireSessionRow(db, sessionId ?? turn.sessionId);
  if (view.id !== turn.sessionId && !isOnLine(db, view.headTurnId, turn)) view = requireSessionRow(db, turn.sessionId);
  const compactor = findCompactionThatSummarized(ledger, turnId, { sessionId: view.id });
  if (!compactor || !view.headTurnId) return null;
  const newest = effectiveCompaction(db, requireTurnRow(db, view.headTurnId), view);
  return turnFromRow(newest ?? requireTurnRow(db, compactor.id)) as CompactionTurn;
}

function isOnLine(db: LedgerDrizzle, headTurnId: string | null, turn: AgentTurnRow): boolean {
  return headTurnId !== null && isOnChain(chainSegments(db, requireTurnRow(db, headTurnId)), turn);
}
