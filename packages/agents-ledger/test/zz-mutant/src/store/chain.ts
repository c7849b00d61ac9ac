// Reading a turn's parent chain without walking it pointer by pointer.
//
// Every session appends only at its head, so the turns a session owns form one line, and depth
// identifies a turn within it. A turn's chain is therefore a few segments — (session, depth range)
// — one per fork on the way back to the root, and each segment is read with one indexed range
// query on (session_id, depth). Reads cost O(turns returned + forks), never O(history).

import { SessionNotFoundError, TurnNotFoundError } from '@nexus/core';
import { type AgentTurnRow, agentSessions, agentTurns, type LedgerDrizzle } from '@nexus/db';
import { and, asc, between, desc, eq } from 'drizzle-orm';

export interface ChainSegment {
  sessionId: string;
  fromDepth: number;
  toDepth: number;
}

export function requireTurnRow(db: LedgerDrizzle, turnId: string): AgentTurnRow {
  const row = db.select().from(agentTurns).where(eq(agentTurns.id, turnId)).get();
  if (!row) throw new TurnNotFoundError(turnId);
  return row;
}

export function requireSessionRow(db: LedgerDrizzle, sessionId: string) {
  const row = db.select().from(agentSessions).where(eq(agentSessions.id, sessionId)).get();
  if (!row) throw new SessionNotFoundError(sessionId);
  return row;
}

/** Segments of the chain from the root to `turn`, oldest first. */
export function chainSegments(db: LedgerDrizzle, turn: Pick<AgentTurnRow, 'sessionId' | 'depth'>): ChainSegment[] {
  const newestFirst: ChainSegment[] = [];
  let sessionId: string = turn.sessionId;
  let toDepth = turn.depth;
  for (;;) {
    const session = requireSessionRow(db, sessionId);
    if (!session.forkedFromTurnId) {
      newestFirst.push({ sessionId, fromDepth: 0, toDepth });
      break;
    }
    const forkPoint = requireTurnRow(db, session.forkedFromTurnId);
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
export function isOnChain(segments: ChainSegment[], ancestor: Pick<AgentTurnRow, 'sessionId' | 'depth'>): boolean {
  return segments.some(
    (segment) =>
      segment.sessionId === ancestor.sessionId && segment.fromDepth <= ancestor.depth && ancestor.depth <= segment.toDepth,
  );
}

/** The chain's turns whose depth lies in [fromDepth, toDepth], oldest first, in pages. */
export function* readChainRange(db: LedgerDrizzle, segments: ChainSegment[], pageSize = 500): Generator<AgentTurnRow[]> {
  for (const segment of segments) {
    let next = segment.fromDepth;
    while (next <= segment.toDepth) {
      const last = Math.min(segment.toDepth, next + pageSize - 1);
      const page = db
        .select()
        .from(agentTurns)
        .where(and(eq(agentTurns.sessionId, segment.sessionId), between(agentTurns.depth, next, last)))
        .orderBy(asc(agentTurns.depth))
        .all();
      if (page.length > 0) yield page;
      next = last + 1;
    }
  }
}

/** The chain's turns in [fromDepth, toDepth], newest first, in pages: for readers that stop early. */
export function* readChainRangeNewestFirst(
  db: LedgerDrizzle,
  segments: ChainSegment[],
  pageSize = 200,
): Generator<AgentTurnRow[]> {
  for (const segment of [...segments].reverse()) {
    let next = segment.toDepth;
    while (next >= segment.fromDepth) {
      const first = Math.max(segment.fromDepth, next - pageSize + 1);
      const page = db
        .select()
        .from(agentTurns)
        .where(and(eq(agentTurns.sessionId, segment.sessionId), between(agentTurns.depth, first, next)))
        .orderBy(desc(agentTurns.depth))
        .all();
      if (page.length > 0) yield page;
      next = first - 1;
    }
  }
}
