// Reading the stored history: the full chain (streamed), what a compaction summarized, and the
// compactions around a turn. Nothing here depends on how long the history is, except the full
// history itself, which is streamed in pages.

import { type CompactionTurn, InvalidInputError, type Turn } from '@agent-ledger/core';
import type { StoredTurn, StoreOperations } from '@agent-ledger/store';
import type { LedgerContext } from './ledger-context.ts';
import {
  chainSegments,
  clipSegments,
  isOnChain,
  readChain,
  readChainRange,
  requireSessionRow,
  requireTurnRow,
} from './store/chain.ts';
import { turnsWithEventLinks } from './store/event-links.ts';
import { turnFromRow } from './store/row-mapping.ts';

/** Every turn from the root to `turnId`, compactions included, oldest first, a page at a time. */
export interface HistoryOptions {
  /** Only the turns the turn's own session wrote: a fork's own turns, not those it shares. */
  ownTurnsOnly?: boolean;
}

export async function* getFullHistory(
  ledger: LedgerContext,
  turnId: string,
  options: HistoryOptions = {},
  pageSize = 500,
): AsyncGenerator<Turn> {
  const store = ledger.store;
  const turn = await requireTurnRow(store, turnId);
  const line = await chainSegments(store, turn);
  // A fork's own turns are its own segment of the chain: nothing inherited is read at all.
  const segments = options.ownTurnsOnly ? line.filter((segment) => segment.sessionId === turn.sessionId) : line;
  for await (const page of readChainRange(store, segments, { pageSize })) {
    for (const turn of await turnsWithEventLinks(store, page)) yield turn;
  }
}

/**
 * What a compaction's summary stands in for, in chain order: the previous compaction (whose
 * summary it folded in), the raw turns that compaction had kept, and the turns after it, through
 * `summarizedThroughTurnId`.
 */
export async function getSummarizedTurns(ledger: LedgerContext, compactionTurnId: string): Promise<Turn[]> {
  const store = ledger.store;
  const compaction = await requireCompactionRow(store, compactionTurnId);
  const segments = clipSegments(
    await chainSegments(store, compaction),
    compaction.coversFromDepth ?? 0,
    compaction.summarizedThroughDepth ?? -1,
  );
  const rows = await readChain(store, segments);
  // The previous compaction can sit after the cut (its kept turns precede it): add it in order.
  if (compaction.previousCompactionId && !rows.some((row) => row.id === compaction.previousCompactionId)) {
    rows.push(await requireTurnRow(store, compaction.previousCompactionId));
    rows.sort((left, right) => left.depth - right.depth);
  }
  return turnsWithEventLinks(store, rows);
}

/** The newest compaction at or above `turnId` in its chain: the one its context starts from. */
export async function findLatestCompaction(ledger: LedgerContext, turnId: string): Promise<CompactionTurn | null> {
  const turn = await requireTurnRow(ledger.store, turnId);
  if (!turn.latestCompactionId) return null;
  return turnFromRow(await requireTurnRow(ledger.store, turn.latestCompactionId)) as CompactionTurn;
}

/**
 * The compaction that summarized `turnId` as seen from a session (by default the session that
 * wrote the turn): forks can summarize the same inherited turn differently. Null when no
 * compaction on that session's line has summarized it yet.
 */
export async function findCompactionThatSummarized(
  ledger: LedgerContext,
  turnId: string,
  options: { sessionId?: string } = {},
): Promise<CompactionTurn | null> {
  const store = ledger.store;
  const turn = await requireTurnRow(store, turnId);
  let session = await requireSessionRow(store, options.sessionId ?? turn.sessionId);
  if (!session.headTurnId) return null;
  const viewChain = await chainSegments(store, await requireTurnRow(store, session.headTurnId));
  if (!isOnChain(viewChain, turn)) return null;
  if (turn.turnType === 'compaction') {
    // A compaction is summarized by the next one that folded its summary in, on this line.
    const folders = await store.compactionsFolding(turn.id);
    const floor = session.ignoreCompactionsThroughDepth ?? -1;
    const folder = folders.find((row) => row.depth > floor && isOnChain(viewChain, row));
    return folder ? (turnFromRow(folder) as CompactionTurn) : null;
  }
  // Look in the session, then in the sessions it was forked from, only at compactions on its line.
  let maxDepth = Number.MAX_SAFE_INTEGER;
  // Compactions the viewing session ignores (a `full` fork's inherited ones) summarize nothing for it.
  const floor = session.ignoreCompactionsThroughDepth ?? -1;
  for (;;) {
    const found = await store.compactionCovering({ sessionId: session.id, depth: turn.depth, maxDepth, aboveDepth: floor });
    if (found) return turnFromRow(found) as CompactionTurn;
    if (!session.forkedFromTurnId) return null;
    const forkPoint = await requireTurnRow(store, session.forkedFromTurnId);
    if (turn.depth > forkPoint.depth) return null;
    maxDepth = forkPoint.depth;
    session = await requireSessionRow(store, forkPoint.sessionId);
  }
}

async function requireCompactionRow(store: StoreOperations, turnId: string): Promise<StoredTurn> {
  const row = await requireTurnRow(store, turnId);
  if (row.turnType !== 'compaction') {
    throw new InvalidInputError(`Turn ${turnId} is a normal turn, not a compaction; pass a compaction turn's id.`, 'turnId');
  }
  return row;
}
