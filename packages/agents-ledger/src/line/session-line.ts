// The session's line at a turn, read once: the turn, the session whose view it is, the compaction a
// context starts from (the fork floor applied), the turn raw turns resume at, and the line's chain
// segments. Every operation starts from it (buildContext, the hybrid context, recall, compact)
// instead of re-reading pieces; the newest turns and the raw turns are then range reads over its
// segments (store/chain.ts). Reading it costs a fixed number of store calls: the turn, the session,
// the compaction and its first kept turn when there is one, and one session row per fork on the way
// back to the root.

import { TurnNotFoundError } from '@agent-ledger/core';
import type { SessionRecord, StoredTurn, StoreOperations, TurnWithCompaction } from '@agent-ledger/store';
import { effectiveCompaction } from '../chain-arithmetic.ts';
import {
  type ChainSegment,
  chainSegments,
  clipSegments,
  readChainRangeNewestFirst,
  requireSessionRow,
  requireTurnRow,
} from '../store/chain.ts';

export interface SessionLine {
  /** The turn the line ends at. */
  turn: StoredTurn;
  /** The session whose view of the history this is (its fork floor decides which compaction counts). */
  view: SessionRecord;
  /** The compaction a context starts from; null without one, or for a full read. */
  compaction: StoredTurn | null;
  /** The compaction's first kept turn; null when it keeps none or there is no compaction. */
  firstKept: StoredTurn | null;
  /** Depth raw turns resume at: 0 without a compaction. */
  rawStartDepth: number;
  /** The line from the root to `turn`, oldest first, one segment per fork. */
  segments: ChainSegment[];
}

export interface ReadLineOptions {
  /** See the history as this session does (default: the session that wrote the turn). */
  sessionId?: string;
  /** The view's session row when the caller has read it already. */
  view?: SessionRecord;
  /** The turn's row when the caller has read it already. */
  turn?: StoredTurn;
  /** Ignore every compaction: the raw line from the root. */
  full?: boolean;
}

export async function readSessionLine(
  store: StoreOperations,
  turnId: string,
  options: ReadLineOptions = {},
): Promise<SessionLine> {
  // The turn, its line's newest compaction and that one's first kept turn: one store call.
  const read: TurnWithCompaction | undefined =
    options.turn?.id === turnId ? { turn: options.turn } : await store.turnWithCompaction(turnId);
  if (!read) throw new TurnNotFoundError(turnId);
  const { turn } = read;
  const viewId = options.sessionId ?? options.view?.id ?? turn.sessionId;
  const view = options.view?.id === viewId ? options.view : await requireSessionRow(store, viewId);
  const compaction = options.full ? null : await effectiveCompaction(store, turn, view, read.compaction);
  const keptId = compaction?.firstKeptTurnId;
  const firstKept = keptId ? (read.firstKept?.id === keptId ? read.firstKept : await requireTurnRow(store, keptId)) : null;
  const rawStartDepth = compaction ? (firstKept?.depth ?? compaction.depth + 1) : 0;
  return { turn, view, compaction, firstKept, rawStartDepth, segments: await chainSegments(store, turn, view) };
}

/** The segments of the line that hold its raw turns: from the compaction's first kept turn on. */
export function rawSegments(line: SessionLine): ChainSegment[] {
  return clipSegments(line.segments, line.rawStartDepth, line.turn.depth);
}

/** Tokens the line's context takes before any budget (as chain-arithmetic's contextTokensAt), with no read. */
export function lineContextTokens(line: SessionLine): number {
  const { turn, compaction, firstKept } = line;
  if (!compaction) return turn.cumulativeTokens;
  if (!firstKept) return compaction.tokenCount + turn.cumulativeTokens - compaction.cumulativeTokens;
  return compaction.tokenCount + turn.cumulativeTokens - firstKept.cumulativeTokens + firstKept.tokenCount;
}

/** The line's newest `count` turns (compactions included), newest first: one range read per segment touched. */
export async function newestRows(store: StoreOperations, line: SessionLine, count: number): Promise<StoredTurn[]> {
  const rows: StoredTurn[] = [];
  for await (const page of readChainRangeNewestFirst(store, line.segments, count)) {
    rows.push(...page.slice(0, count - rows.length));
    if (rows.length >= count) break;
  }
  return rows;
}
