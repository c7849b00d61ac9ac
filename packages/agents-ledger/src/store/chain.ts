// Reading a turn's parent chain without walking it pointer by pointer.
//
// Every session appends only at its head, so the turns a session owns form one line, and depth
// identifies a turn within it (unique per session). A turn's chain is therefore a few segments —
// (session, depth range) — one per fork on the way back to the root, and each segment is read with
// one ranged store read. Reads cost O(turns returned + forks), never O(history).

import { SessionNotFoundError, TurnNotFoundError } from '@agent-ledger/core';
import type { SessionRecord, StoredTurn, StoreOperations } from '@agent-ledger/store';

export interface ChainSegment {
  sessionId: string;
  fromDepth: number;
  toDepth: number;
}

export async function requireTurnRow(store: StoreOperations, turnId: string): Promise<StoredTurn> {
  const row = await store.getTurn(turnId);
  if (!row) throw new TurnNotFoundError(turnId);
  return row;
}

export async function requireSessionRow(store: StoreOperations, sessionId: string): Promise<SessionRecord> {
  const row = await store.getSession(sessionId);
  if (!row) throw new SessionNotFoundError(sessionId);
  return row;
}

/**
 * Segments of the chain from the root to `turn`, oldest first. `known` is a session row the caller
 * already read (the turn's own, usually), so the walk does not read it again.
 */
export async function chainSegments(
  store: StoreOperations,
  turn: Pick<StoredTurn, 'sessionId' | 'depth'>,
  known?: SessionRecord,
): Promise<ChainSegment[]> {
  const newestFirst: ChainSegment[] = [];
  let sessionId: string = turn.sessionId;
  let toDepth = turn.depth;
  for (;;) {
    const session = known?.id === sessionId ? known : await requireSessionRow(store, sessionId);
    if (!session.forkedFromTurnId) {
      newestFirst.push({ sessionId, fromDepth: 0, toDepth });
      break;
    }
    const forkPoint = await requireTurnRow(store, session.forkedFromTurnId);
    if (toDepth > forkPoint.depth) newestFirst.push({ sessionId, fromDepth: forkPoint.depth + 1, toDepth });
    sessionId = forkPoint.sessionId;
    toDepth = Math.min(toDepth, forkPoint.depth);
  }
  return newestFirst.reverse();
}

/** The segments of `segments` that fall inside [fromDepth, toDepth]. */
export function clipSegments(segments: ChainSegment[], fromDepth: number, toDepth: number): ChainSegment[] {
  return segments
    .map((segment) => ({
      sessionId: segment.sessionId,
      fromDepth: Math.max(segment.fromDepth, fromDepth),
      toDepth: Math.min(segment.toDepth, toDepth),
    }))
    .filter((segment) => segment.fromDepth <= segment.toDepth);
}

/** True when `ancestor` lies on the chain that ends at `descendant` (a turn is its own ancestor). */
export function isOnChain(segments: ChainSegment[], ancestor: Pick<StoredTurn, 'sessionId' | 'depth'>): boolean {
  return segments.some(
    (segment) =>
      segment.sessionId === ancestor.sessionId && segment.fromDepth <= ancestor.depth && ancestor.depth <= segment.toDepth,
  );
}

/** The chain's turns whose depth lies in [fromDepth, toDepth], oldest first, in pages. */
export async function* readChainRange(
  store: StoreOperations,
  segments: ChainSegment[],
  pageSize = 500,
): AsyncGenerator<StoredTurn[]> {
  for (const segment of segments) {
    let next = segment.fromDepth;
    while (next <= segment.toDepth) {
      const last = Math.min(segment.toDepth, next + pageSize - 1);
      const page = await store.chainPage({ sessionId: segment.sessionId, fromDepth: next, toDepth: last });
      if (page.length > 0) yield page;
      next = last + 1;
    }
  }
}

/** Every turn of the chain's segments, oldest first, in one array. */
export async function readChain(store: StoreOperations, segments: ChainSegment[]): Promise<StoredTurn[]> {
  const rows: StoredTurn[] = [];
  for await (const page of readChainRange(store, segments)) rows.push(...page);
  return rows;
}

/** The chain's turns in [fromDepth, toDepth], newest first, in pages: for readers that stop early. */
export async function* readChainRangeNewestFirst(
  store: StoreOperations,
  segments: ChainSegment[],
  pageSize = 200,
): AsyncGenerator<StoredTurn[]> {
  for (const segment of [...segments].reverse()) {
    let next = segment.toDepth;
    while (next >= segment.fromDepth) {
      const first = Math.max(segment.fromDepth, next - pageSize + 1);
      const page = await store.chainPage({ sessionId: segment.sessionId, fromDepth: first, toDepth: next, newestFirst: true });
      if (page.length > 0) yield page;
      next = first - 1;
    }
  }
}
