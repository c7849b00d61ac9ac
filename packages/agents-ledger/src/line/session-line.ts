// The session's line at a turn, read once: the turn, the session whose view it is, the compaction a
// context starts from (the fork floor applied), the turn raw turns resume at, and the line's chain
// segments. Every operation starts from it (buildContext, the hybrid context, recall, compact)
// instead of re-reading pieces; the newest turns and the raw turns are then range reads over its
// segments (store/chain.ts). Reading it costs a fixed number of store calls: one `lineStart` (the
// turn, its compaction and first kept turn, the session, and the newest turns since that first kept
// turn with the events they cite), and one session row per fork on the way back to the root. The
// newest turns ride along as `known` rows, so the context's own range read and its cited events
// usually need no further call: on PostgreSQL a context at the head is one round trip.

import { TurnNotFoundError } from '@agent-ledger/core';
import type { SessionRecord, StoredTurn, StoreOperations, TurnWithCompaction } from '@agent-ledger/store';
import { effectiveCompaction } from '../chain-arithmetic.ts';
import {
  type ChainSegment,
  chainSegments,
  clipSegments,
  type KnownRows,
  type LineRow,
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
  /** The newest turns of the turn's own session, read with the line: range reads start from them. */
  known?: KnownRows;
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
  /** How many of the newest turns to read with the line (default NEWEST_WITH_LINE; 0 for none). */
  newestLimit?: number;
}

/** Newest turns read with the line: more than a budgeted context or the raw turns since a compaction usually hold. */
export const NEWEST_WITH_LINE = 200;

export async function readSessionLine(
  store: StoreOperations,
  turnId: string,
  options: ReadLineOptions = {},
): Promise<SessionLine> {
  // Callers holding the turn or the view's row already (compaction, inside its transaction) read the rest apart.
  if (options.turn?.id === turnId || options.view) return readLineApart(store, turnId, options);
  const newestLimit = options.newestLimit ?? NEWEST_WITH_LINE;
  const start = await store.lineStart({ turnId, sessionId: options.sessionId, newestLimit });
  if (!start) throw new TurnNotFoundError(turnId);
  const { turn, newest } = start;
  const view = start.session ?? (await requireSessionRow(store, options.sessionId ?? turn.sessionId));
  const known: KnownRows = {
    sessionId: turn.sessionId,
    // A full page may stop short of where it began looking: it covers only down to its oldest row.
    fromDepth: newest.length < newestLimit ? start.newestFromDepth : (newest.at(-1)?.depth ?? turn.depth + 1),
    toDepth: turn.depth,
    newestFirst: newest,
    eventIds: start.newestEventIds,
  };
  return { ...(await lineFrom(store, { read: start, view, full: options.full })), known };
}

/** The line from reads made one by one (the turn, the view, then the rest). */
async function readLineApart(store: StoreOperations, turnId: string, options: ReadLineOptions): Promise<SessionLine> {
  // The turn, its line's newest compaction and that one's first kept turn: one store call.
  const read: TurnWithCompaction | undefined =
    options.turn?.id === turnId ? { turn: options.turn } : await store.turnWithCompaction(turnId);
  if (!read) throw new TurnNotFoundError(turnId);
  const viewId = options.sessionId ?? options.view?.id ?? read.turn.sessionId;
  const view = options.view?.id === viewId ? options.view : await requireSessionRow(store, viewId);
  return lineFrom(store, { read, view, full: options.full });
}

/** The rest of the line once the turn and the view are known: the compaction that counts, and the segments. */
async function lineFrom(
  store: StoreOperations,
  { read, view, full }: { read: TurnWithCompaction; view: SessionRecord; full?: boolean },
): Promise<SessionLine> {
  const { turn } = read;
  const compaction = full ? null : await effectiveCompaction(store, turn, view, read.compaction);
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

/**
 * The line's newest `count` turns (compactions included), newest first: one range read per segment
 * touched. Rows the line start brought come without `searchText` (LineRow).
 */
export async function newestRows(store: StoreOperations, line: SessionLine, count: number): Promise<LineRow[]> {
  const rows: LineRow[] = [];
  for await (const page of readChainRangeNewestFirst(store, line.segments, { pageSize: count, known: line.known })) {
    rows.push(...page.slice(0, count - rows.length));
    if (rows.length >= count) break;
  }
  return rows;
}
