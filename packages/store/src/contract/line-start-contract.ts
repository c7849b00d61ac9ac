// The line-start part of the store contract: `lineStart` returns exactly what its parts return
// apart (turnWithCompaction, getSession, a newest-first chainPage from the first kept turn without
// its rows' searchText, and eventIdsByTurn of that page), inside a transaction or not, whatever the
// limit and wherever the compaction lies; and every chain page derives `hasChildren` as a point
// read does, whatever the order, the limit or the forks.

import { expect, it } from 'vitest';
import type { LedgerStore, StoreOperations, TurnRecord } from '../index.ts';
import { appendRows, sessionRecord, sessionWithTurns, turnRecord } from './ledger-rows.ts';
import type { OpenStore } from './open-per-case.ts';

/** s: 6 turns, a compaction keeping s-t3, two turns after it; the newest cites event e1. */
async function compactedLine(store: LedgerStore): Promise<{ turns: TurnRecord[]; head: TurnRecord }> {
  await store.appendEvents({
    events: [{ channel: 'chat', externalId: 'x-e1' }],
    seal: () => ({
      id: 'e1',
      channel: 'chat',
      externalId: 'x-e1',
      author: 'ana',
      kind: 'message',
      payload: '{}',
      occurredAt: 1,
      receivedAt: 1,
      seq: 1,
      prevHash: null,
      hash: 'h-e1',
      searchText: 'ana',
    }),
  });
  const turns = await sessionWithTurns(store, 's', 6);
  const last = turns[5] as TurnRecord;
  const compaction = turnRecord('c1', 's', last, {
    turnType: 'compaction',
    role: null,
    content: null,
    summary: 'first',
    summarizedThroughTurnId: turns[2]?.id ?? null,
    firstKeptTurnId: turns[3]?.id ?? null,
    coversFromDepth: 0,
    summarizedThroughDepth: 2,
    latestCompactionId: 'c1',
  });
  const after = turnRecord('n1', 's', compaction);
  const head = turnRecord('n2', 's', after);
  await appendRows(store, 's', last, [compaction, after]);
  const written = await store.appendToSession({
    sessionId: 's',
    expectedHeadTurnId: after.id,
    turns: [head],
    eventLinks: [{ turnId: head.id, eventId: 'e1' }],
  });
  expect(written.written).toBe(true);
  return { turns: [...turns, compaction, after, head], head };
}

/** What lineStart must equal: its parts, read apart. */
async function readApart(store: StoreOperations, turnId: string, sessionId: string | undefined, newestLimit: number) {
  const read = await store.turnWithCompaction(turnId);
  if (!read) return undefined;
  const session = await store.getSession(sessionId ?? read.turn.sessionId);
  const newestFromDepth = read.firstKept?.depth ?? (read.compaction ? read.compaction.depth + 1 : 0);
  const newest = await store.chainPage({
    sessionId: read.turn.sessionId,
    fromDepth: newestFromDepth,
    toDepth: read.turn.depth,
    newestFirst: true,
    limit: newestLimit,
  });
  const newestEventIds = await store.eventIdsByTurn(newest.map((row) => row.id));
  return {
    ...read,
    ...(session ? { session } : {}),
    newestFromDepth,
    newest: newest.map(({ searchText: _, ...row }) => row),
    newestEventIds,
  };
}

export function lineReadCases(open: OpenStore): void {
  it('reads the line start in one call: turn, compaction, first kept turn, session, newest page and its events', async () => {
    const store = await open();
    const { head } = await compactedLine(store);
    const read = await store.lineStart({ turnId: head.id, newestLimit: 200 });
    expect(read).toEqual(await readApart(store, head.id, undefined, 200));
    // From the first kept turn (depth 3) to the head (depth 8), newest first; the compaction among them.
    expect(read?.newestFromDepth).toBe(3);
    expect(read?.newest.map((row) => row.depth)).toEqual([8, 7, 6, 5, 4, 3]);
    expect(read?.newestEventIds).toEqual(new Map([[head.id, ['e1']]]));
    expect(read?.session?.id).toBe('s');
    // The page leaves searchText out (toEqual would let an undefined one pass); the line's own rows keep it.
    expect(read?.newest.filter((row) => 'searchText' in row)).toEqual([]);
    expect([read?.turn.searchText, read?.firstKept?.searchText]).toEqual(['turn n2', 'turn s-t3']);
    // A limit keeps the newest.
    expect((await store.lineStart({ turnId: head.id, newestLimit: 2 }))?.newest.map((row) => row.id)).toEqual(['n2', 'n1']);
    expect(await store.lineStart({ turnId: 'nope', newestLimit: 5 })).toBeUndefined();
  });

  it('reads the line start of a turn without a compaction, seen from another session, and inside a transaction', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 4);
    const t1 = turns[1] as TurnRecord;
    await store.insertSession(sessionRecord('f', { parentSessionId: 's', forkedFromTurnId: t1.id, headTurnId: t1.id }));
    const forkTurn = turnRecord('f-1', 'f', t1);
    await appendRows(store, 'f', t1, [forkTurn]);
    const inFork = await store.lineStart({ turnId: 'f-1', newestLimit: 10 });
    expect(inFork).toEqual(await readApart(store, 'f-1', undefined, 10));
    // Only the session's own turns: the fork's one turn, not those it shares with s.
    expect(inFork?.newest.map((row) => row.id)).toEqual(['f-1']);
    const fromFork = await store.lineStart({ turnId: t1.id, sessionId: 'f', newestLimit: 10 });
    expect(fromFork?.session?.id).toBe('f');
    expect(fromFork?.newest.map((row) => row.id)).toEqual([t1.id, turns[0]?.id]);
    // A fork made at t1 with a turn of its own gives t1 a child, as a point read says.
    expect(fromFork?.newest[0]?.hasChildren).toBe(true);
    expect((await store.lineStart({ turnId: t1.id, sessionId: 'none', newestLimit: 1 }))?.session).toBeUndefined();
    const inTransaction = await store.transaction(async (tx) => ({
      together: await tx.lineStart({ turnId: 's-t3', newestLimit: 3 }),
      apart: await readApart(tx, 's-t3', undefined, 3),
    }));
    expect(inTransaction.together).toEqual(inTransaction.apart);
  });

  it('derives hasChildren on every chain page as a point read does, in either order and with a limit', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 8);
    const [t2, t7] = [turns[2], turns[7]] as [TurnRecord, TurnRecord];
    // A fork at the head with a turn of its own (the head's only child), and one at t2 without any.
    await store.insertSession(sessionRecord('f', { parentSessionId: 's', forkedFromTurnId: t7.id, headTurnId: t7.id }));
    await appendRows(store, 'f', t7, [turnRecord('f-1', 'f', t7)]);
    await store.insertSession(sessionRecord('g', { parentSessionId: 's', forkedFromTurnId: t2.id, headTurnId: t2.id }));
    const expected = new Map<string, boolean>([['f-1', false]]);
    for (const turn of turns) expected.set(turn.id, (await store.getTurn(turn.id))?.hasChildren as boolean);
    expect([...expected.values()]).toEqual([false, true, true, true, true, true, true, true, true]);
    expect((await store.chainPage({ sessionId: 'f', fromDepth: 0, toDepth: 99 })).map((row) => row.hasChildren)).toEqual([false]);
    for (const [fromDepth, toDepth] of [
      [0, 7],
      [0, 2],
      [2, 2],
      [3, 6],
      [5, 7],
    ] as const) {
      for (const newestFirst of [false, true]) {
        for (const limit of [undefined, 1, 2]) {
          const page = await store.chainPage({ sessionId: 's', fromDepth, toDepth, newestFirst, ...(limit ? { limit } : {}) });
          for (const row of page) expect([row.id, row.hasChildren]).toEqual([row.id, expected.get(row.id)]);
        }
      }
    }
  });

  lineStartBoundsCases(open);
}

/** The page's bounds: every limit, and a compaction and first kept turn outside the turn's own session. */
function lineStartBoundsCases(open: OpenStore): void {
  it('reads the line start whatever the limit, and with the compaction in the session a fork came from', async () => {
    const store = await open();
    const { head } = await compactedLine(store);
    // Limits that cut the page above the compaction (depth 6) and the first kept turn (depth 3), and 0.
    for (const limit of [0, 1, 2, 3, 5, 6, 7, 50]) {
      expect([limit, await store.lineStart({ turnId: head.id, newestLimit: limit })]).toEqual([
        limit,
        await readApart(store, head.id, undefined, limit),
      ]);
    }
    // A fork at the head: its turns' newest compaction and first kept turn are the parent session's.
    await store.insertSession(sessionRecord('f', { parentSessionId: 's', forkedFromTurnId: head.id, headTurnId: head.id }));
    const forkFirst = turnRecord('f-1', 'f', head);
    await appendRows(store, 'f', head, [forkFirst, turnRecord('f-2', 'f', forkFirst)]);
    for (const limit of [0, 1, 200]) {
      const read = await store.lineStart({ turnId: 'f-2', newestLimit: limit });
      expect(read).toEqual(await readApart(store, 'f-2', undefined, limit));
      expect([read?.compaction?.id, read?.firstKept?.id, read?.newestFromDepth]).toEqual(['c1', 's-t3', 3]);
    }
    expect((await store.lineStart({ turnId: 'f-2', newestLimit: 200 }))?.newest.map((row) => row.id)).toEqual(['f-2', 'f-1']);
  });
}
