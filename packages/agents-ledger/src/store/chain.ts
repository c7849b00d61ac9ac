// Reading a turn's parent chain without walking it pointer by pointer.
//
// Every session appends only at its head, so the turns a session owns form one line, and depth
// identifies a turn within it (unique per session). A turn's chain is therefore a few segments —
// (session, depth range) — one per fork on the way back to the root, and each segment is read with
// one ranged store read. Reads cost O(turns returned + forks), never O(history).

import { SessionNotFoundError, TurnNotFoundError } from '@agent-ledger/core';
import type { LineStart, SessionRecord, StoredTurn, StoreOperations } from '@agent-ledger/store';

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

/** A turn as a line start's newest page holds it: every stored field but `searchText`. */
export type LineRow = LineStart['newest'][number];

/**
 * Every turn of one session with depth in [fromDepth, toDepth], newest first, already read (the
 * newest page a line start brings): range reads serve these from memory instead of the store, so
 * a read given them yields LineRows (no `searchText`), one without them whole StoredTurns.
 */
export interface KnownRows<Row extends LineRow = LineRow> {
  sessionId: string;
  fromDepth: number;
  toDepth: number;
  newestFirst: Row[];
  /** Event ids the rows cite (rows citing none are absent). */
  eventIds: Map<string, string[]>;
}

export interface ChainReadOptions<Row extends LineRow = StoredTurn> {
  /** Turns per store read (default 500 oldest first, 200 newest first). */
  pageSize?: number;
  /** Rows read already: served from memory where a segment meets them. */
  known?: KnownRows<Row>;
}

/** The known rows of `sessionId` with depth in [fromDepth, toDepth], newest first. */
function knownBetween<Row extends LineRow>(known: KnownRows<Row>, fromDepth: number, toDepth: number): Row[] {
  return known.newestFirst.filter((row) => row.depth >= fromDepth && row.depth <= toDepth);
}

/** `known` when it holds the turn of `sessionId` at `depth`. */
function knownAt<Row extends LineRow>(
  known: KnownRows<Row> | undefined,
  sessionId: string,
  depth: number,
): KnownRows<Row> | undefined {
  return known && known.sessionId === sessionId && known.fromDepth <= depth && depth <= known.toDepth ? known : undefined;
}

/** The chain's turns whose depth lies in [fromDepth, toDepth], oldest first, in pages. */
export async function* readChainRange<Row extends LineRow = StoredTurn>(
  store: StoreOperations,
  segments: ChainSegment[],
  { pageSize = 500, known }: ChainReadOptions<Row> = {},
): AsyncGenerator<Array<Row | StoredTurn>> {
  for (const segment of segments) {
    let next = segment.fromDepth;
    while (next <= segment.toDepth) {
      const held = knownAt(known, segment.sessionId, next);
      if (held) {
        const last = Math.min(segment.toDepth, held.toDepth);
        const rows = knownBetween(held, next, last).reverse();
        if (rows.length > 0) yield rows;
        next = last + 1;
        continue;
      }
      let last = Math.min(segment.toDepth, next + pageSize - 1);
      // Stop where the known rows begin: they are served from memory next.
      if (known?.sessionId === segment.sessionId && known.fromDepth > next && known.fromDepth <= known.toDepth)
        last = Math.min(last, known.fromDepth - 1);
      const page = await store.chainPage({ sessionId: segment.sessionId, fromDepth: next, toDepth: last });
      if (page.length > 0) yield page;
      next = last + 1;
    }
  }
}

/** Every turn of the chain's segments, oldest first, in one array. */
export async function readChain<Row extends LineRow = StoredTurn>(
  store: StoreOperations,
  segments: ChainSegment[],
  known?: KnownRows<Row>,
): Promise<Array<Row | StoredTurn>> {
  const rows: Array<Row | StoredTurn> = [];
  for await (const page of readChainRange(store, segments, { known })) rows.push(...page);
  return rows;
}

/** The chain's turns in [fromDepth, toDepth], newest first, in pages: for readers that stop early. */
export async function* readChainRangeNewestFirst<Row extends LineRow = StoredTurn>(
  store: StoreOperations,
  segments: ChainSegment[],
  { pageSize = 200, known }: ChainReadOptions<Row> = {},
): AsyncGenerator<Array<Row | StoredTurn>> {
  for (const segment of [...segments].reverse()) {
    let next = segment.toDepth;
    while (next >= segment.fromDepth) {
      const held = knownAt(known, segment.sessionId, next);
      if (held) {
        const first = Math.max(segment.fromDepth, held.fromDepth);
        const rows = knownBetween(held, first, next);
        if (rows.length > 0) yield rows;
        next = first - 1;
        continue;
      }
      let first = Math.max(segment.fromDepth, next - pageSize + 1);
      // Stop where the known rows end: they are served from memory next.
      if (known?.sessionId === segment.sessionId && known.toDepth < next && known.fromDepth <= known.toDepth)
        first = Math.max(first, known.toDepth + 1);
      const page = await store.chainPage({ sessionId: segment.sessionId, fromDepth: first, toDepth: next, newestFirst: true });
      if (page.length > 0) yield page;
      next = first - 1;
    }
  }
}

/**
 * Event ids cited by `turnIds`, from the known rows when they hold every one of them (no store
 * call), else read.
 */
export async function eventIdsOf(
  store: StoreOperations,
  turnIds: readonly string[],
  known?: KnownRows<LineRow>,
): Promise<Map<string, string[]>> {
  if (turnIds.length === 0) return new Map();
  if (known) {
    const held = new Set(known.newestFirst.map((row) => row.id));
    if (turnIds.every((id) => held.has(id))) {
      const found = new Map<string, string[]>();
      for (const id of turnIds) {
        const eventIds = known.eventIds.get(id);
        if (eventIds) found.set(id, eventIds);
      }
      return found;
    }
  }
  return store.eventIdsByTurn(turnIds);
}
