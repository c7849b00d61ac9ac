// The sessions-and-turns part of the store contract: session rows round-trip, the append is one
// atomic compare-and-set of the head with the insert (a lost race writes nothing), depth is unique
// per session, chains read by (session, depth range) in either order, `hasChildren` is derived
// from what exists, and turns cite events.

import { describe, expect, it } from 'vitest';
import type { EventRecord, LedgerStore, TurnRecord } from '../index.ts';
import { appendRows, sessionRecord, sessionWithTurns, turnRecord } from './ledger-rows.ts';
import { lineReadCases } from './line-start-contract.ts';
import { type OpenStore, openPerCase } from './open-per-case.ts';
import type { StoreUnderTest } from './store-under-test.ts';

function eventRecord(id: string, seq: number, prevHash: string | null): EventRecord {
  return {
    id,
    channel: 'chat',
    externalId: `ext-${id}`,
    author: 'ana',
    kind: 'message',
    payload: '{"text":"hello"}',
    occurredAt: 1_000,
    receivedAt: 1_000,
    seq,
    prevHash,
    hash: `hash-${id}`,
    searchText: 'ana hello',
  };
}

export function turnContract(subject: StoreUnderTest): void {
  describe('sessions and turns', () => {
    const open = openPerCase(subject);
    sessionRowCases(open);
    turnAppendCases(open);
    chainReadCases(open);
    chainRangesCases(open);
    lineStartCases(open);
    lineReadCases(open);
    eventCitationCases(open);
  });
}

/** Session rows: read back, listed, forks found, settings updated. */
function sessionRowCases(open: OpenStore): void {
  it('reads a session back as written, JSON and booleans included; unknown ids are undefined', async () => {
    const store = await open();
    const written = sessionRecord('s-1', {
      label: 'ops',
      rebuildFromRaw: true,
      ignoreCompactionsThroughDepth: 4,
      compactionStrategy: 'union-find',
      calibration: { tokensPerEstimatedToken: 1.5, originalSettings: { contextWindow: 9 } },
    });
    await store.insertSession(written);
    expect(await store.getSession('s-1')).toEqual(written);
    expect(await store.getSession('nope')).toBeUndefined();
    expect(await store.getTurn('nope')).toBeUndefined();
  });

  it('lists sessions newest first with paging, and a session’s forks oldest first', async () => {
    const store = await open();
    for (const [id, createdAt] of [
      ['a', 1],
      ['b', 3],
      ['c', 2],
    ] as const)
      await store.insertSession(sessionRecord(id, { createdAt }));
    expect((await store.listSessions({ limit: 10, offset: 0 })).map((s) => s.id)).toEqual(['b', 'c', 'a']);
    expect((await store.listSessions({ limit: 1, offset: 1 })).map((s) => s.id)).toEqual(['c']);
    const [root] = await sessionWithTurns(store, 'src', 1);
    await store.insertSession(
      sessionRecord('fork-2', { parentSessionId: 'src', forkedFromTurnId: root?.id, headTurnId: root?.id, createdAt: 20 }),
    );
    await store.insertSession(
      sessionRecord('fork-1', { parentSessionId: 'src', forkedFromTurnId: root?.id, headTurnId: root?.id, createdAt: 10 }),
    );
    expect((await store.childSessions('src')).map((s) => s.id)).toEqual(['fork-1', 'fork-2']);
  });

  it('updates a session’s settings and nothing else', async () => {
    const store = await open();
    await sessionWithTurns(store, 's', 2);
    const before = await store.getSession('s');
    const after = await store.updateSessionSettings('s', {
      contextWindow: 500,
      reserveTokens: 50,
      keepRecentTokens: 60,
      calibration: { ratio: 2 },
    });
    expect(after).toEqual({
      ...before,
      contextWindow: 500,
      reserveTokens: 50,
      keepRecentTokens: 60,
      calibration: { ratio: 2 },
    });
  });
}

/** The append: a compare-and-set of the head with the insert, whole or not at all. */
function turnAppendCases(open: OpenStore): void {
  it('appends and moves the head; a plan on a moved head writes nothing and names the actual head', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 3);
    const head = turns[2] as TurnRecord;
    expect((await store.getSession('s'))?.headTurnId).toBe(head.id);
    const stale = turnRecord('stale', 's', turns[1] as TurnRecord);
    const outcome = await store.appendToSession({ sessionId: 's', expectedHeadTurnId: turns[1]?.id ?? null, turns: [stale] });
    expect(outcome).toEqual({ written: false, actualHeadTurnId: head.id });
    expect(await store.getTurn('stale')).toBeUndefined();
    expect((await store.getSession('s'))?.headTurnId).toBe(head.id);
  });

  it('reads a turn’s content and metadata back exactly as written, object key order included', async () => {
    const store = await open();
    await store.insertSession(sessionRecord('s'));
    const content = [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.ts', note: 'b', ab: 1 } }];
    const metadata = { zeta: 1, alpha: { y: 2, x: 1 } };
    await appendRows(store, 's', null, [turnRecord('t', 's', null, { role: 'assistant', content, metadata })]);
    const stored = await store.getTurn('t');
    expect(JSON.stringify(stored?.content)).toBe(JSON.stringify(content));
    expect(JSON.stringify(stored?.metadata)).toBe(JSON.stringify(metadata));
  });

  it('of two appends planned on one head, exactly one is written', async () => {
    const store = await open();
    const [first] = await sessionWithTurns(store, 's', 1);
    const outcomes = await Promise.all(
      ['x', 'y', 'z'].map((id) =>
        store.appendToSession({
          sessionId: 's',
          expectedHeadTurnId: first?.id ?? null,
          turns: [turnRecord(id, 's', first ?? null)],
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.written)).toHaveLength(1);
    const line = await store.chainPage({ sessionId: 's', fromDepth: 0, toDepth: 10 });
    expect(line.map((turn) => turn.depth)).toEqual([0, 1]);
  });

  it('a batch that cannot be written whole is not written at all, and the head stays', async () => {
    const store = await open();
    const [first] = await sessionWithTurns(store, 's', 1);
    const a = turnRecord('a', 's', first ?? null);
    // Same id twice: the second insert fails after the first succeeded.
    const again = { ...turnRecord('a', 's', a) };
    await expect(
      store.appendToSession({ sessionId: 's', expectedHeadTurnId: first?.id ?? null, turns: [a, again] }),
    ).rejects.toThrow();
    expect(await store.getTurn('a')).toBeUndefined();
    expect((await store.getSession('s'))?.headTurnId).toBe(first?.id);
  });

  it('refuses a second turn at a depth its session already has', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 2);
    const clash = turnRecord('clash', 's', turns[1] as TurnRecord, { depth: 1 });
    await expect(
      store.appendToSession({ sessionId: 's', expectedHeadTurnId: turns[1]?.id ?? null, turns: [clash] }),
    ).rejects.toThrow();
    expect(await store.getTurn('clash')).toBeUndefined();
  });
}

/** Reading a line: depth ranges, derived children, the compactions covering a depth. */
function chainReadCases(open: OpenStore): void {
  it('reads a chain range in either order, limited, and turns by id', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 6, (depth) => ({ metadata: { depth } }));
    const ascending = await store.chainPage({ sessionId: 's', fromDepth: 1, toDepth: 4 });
    expect(ascending.map((turn) => turn.depth)).toEqual([1, 2, 3, 4]);
    expect(ascending[0]?.metadata).toEqual({ depth: 1 });
    expect(ascending[0]?.content).toEqual(turns[1]?.content);
    const newest = await store.chainPage({ sessionId: 's', fromDepth: 0, toDepth: 5, newestFirst: true, limit: 2 });
    expect(newest.map((turn) => turn.depth)).toEqual([5, 4]);
    const byId = await store.getTurns(['s-t0', 's-t5', 'missing', 's-t0']);
    expect([...byId.keys()].sort()).toEqual(['s-t0', 's-t5']);
    const { hasChildren, ...stored } = byId.get('s-t5') as NonNullable<Awaited<ReturnType<LedgerStore['getTurn']>>>;
    expect(stored).toEqual(turns[5]);
    expect(hasChildren).toBe(false);
  });

  it('derives hasChildren: the session goes on past a turn, or a fork made at it has turns of its own', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 3);
    const [t0, t1, t2] = turns as [TurnRecord, TurnRecord, TurnRecord];
    expect((await store.getTurn(t0.id))?.hasChildren).toBe(true);
    expect((await store.getTurn(t2.id))?.hasChildren).toBe(false);
    // A fork at the head with no turn of its own gives the head no child…
    await store.insertSession(sessionRecord('f', { parentSessionId: 's', forkedFromTurnId: t2.id, headTurnId: t2.id }));
    expect((await store.getTurn(t2.id))?.hasChildren).toBe(false);
    // …until it writes one.
    await appendRows(store, 'f', t2, [turnRecord('f-1', 'f', t2)]);
    expect((await store.getTurn(t2.id))?.hasChildren).toBe(true);
    expect((await store.getTurn(t1.id))?.hasChildren).toBe(true);
  });

  it('finds compactions by what they folded in and by the depths they cover', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 4);
    const head = turns[3] as TurnRecord;
    const first = turnRecord('c1', 's', head, {
      turnType: 'compaction',
      role: null,
      content: null,
      summary: 'first',
      summarizedThroughTurnId: turns[1]?.id ?? null,
      coversFromDepth: 0,
      summarizedThroughDepth: 1,
    });
    const later = turnRecord('n', 's', first);
    const second = turnRecord('c2', 's', later, {
      turnType: 'compaction',
      role: null,
      content: null,
      summary: 'second',
      summarizedThroughTurnId: head.id,
      coversFromDepth: 2,
      summarizedThroughDepth: 3,
      previousCompactionId: 'c1',
    });
    await appendRows(store, 's', head, [first, later, second]);
    expect((await store.compactionsFolding('c1')).map((turn) => turn.id)).toEqual(['c2']);
    const covering = (depth: number, maxDepth = 100, aboveDepth = -1) =>
      store.compactionCovering({ sessionId: 's', depth, maxDepth, aboveDepth }).then((turn) => turn?.id);
    expect(await covering(0)).toBe('c1');
    // What a history read passes when nothing bounds it from above.
    expect(await covering(0, Number.MAX_SAFE_INTEGER)).toBe('c1');
    expect(await covering(3)).toBe('c2');
    expect(await covering(3, 5)).toBeUndefined();
    expect(await covering(0, 100, 4)).toBeUndefined();
  });
}

/** What a context starts from, in one call. */
function lineStartCases(open: OpenStore): void {
  it("reads a turn with its line's newest compaction and that one's first kept turn in one call", async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 4);
    const head = turns[3] as TurnRecord;
    expect(await store.turnWithCompaction(head.id)).toEqual({ turn: { ...head, hasChildren: false } });
    const compaction = turnRecord('c1', 's', head, {
      turnType: 'compaction',
      role: null,
      content: null,
      summary: 'first',
      summarizedThroughTurnId: turns[1]?.id ?? null,
      firstKeptTurnId: turns[2]?.id ?? null,
      coversFromDepth: 0,
      summarizedThroughDepth: 1,
      // As the ledger writes one: a compaction is its own line's newest compaction.
      latestCompactionId: 'c1',
    });
    const after = turnRecord('n', 's', compaction);
    await appendRows(store, 's', head, [compaction, after]);
    const read = await store.turnWithCompaction('n');
    expect(read?.turn.id).toBe('n');
    expect(read?.compaction?.id).toBe('c1');
    expect(read?.firstKept).toEqual(await store.getTurn(turns[2]?.id as string));
    // A compaction is its own line's newest compaction.
    expect((await store.turnWithCompaction('c1'))?.compaction?.id).toBe('c1');
    expect(await store.turnWithCompaction('nope')).toBeUndefined();
  });
}

/** Turns citing the events they answer. */
function eventCitationCases(open: OpenStore): void {
  it('links turns to the events they cite, and says which event ids name nothing', async () => {
    const store = await open();
    const event = eventRecord('e1', 1, null);
    await store.appendEvents({ events: [{ channel: event.channel, externalId: event.externalId }], seal: () => event });
    await store.insertSession(sessionRecord('s'));
    const turn = turnRecord('t', 's', null);
    await store.appendToSession({
      sessionId: 's',
      expectedHeadTurnId: null,
      turns: [turn],
      eventLinks: [{ turnId: 't', eventId: 'e1' }],
    });
    expect(await store.eventIdsByTurn(['t', 'other'])).toEqual(new Map([['t', ['e1']]]));
    expect(await store.turnsCitingEvent('e1')).toEqual(['t']);
    expect(await store.missingEventIds(['e1', 'e-none'])).toEqual(['e-none']);
  });
}

/** Reading many stretches of lines at once (recall's neighbours). */
function chainRangesCases(open: OpenStore): void {
  it('reads many ranges of several sessions at once, each turn once, as chainPage reads each', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 's', 12);
    await store.insertSession(sessionRecord('f', { parentSessionId: 's', forkedFromTurnId: 's-t4', headTurnId: 's-t4' }));
    await appendRows(store, 'f', turns[4] as TurnRecord, [turnRecord('f-1', 'f', turns[4] as TurnRecord)]);
    const ranges = [
      { sessionId: 's', fromDepth: 9, toDepth: 20 },
      { sessionId: 'f', fromDepth: 0, toDepth: 9 },
      { sessionId: 's', fromDepth: 1, toDepth: 3 },
      // Overlapping and touching ranges, an empty one and one past the end read nothing twice.
      { sessionId: 's', fromDepth: 2, toDepth: 4 },
      { sessionId: 's', fromDepth: 5, toDepth: 5 },
      { sessionId: 's', fromDepth: 8, toDepth: 7 },
      { sessionId: 'none', fromDepth: 0, toDepth: 9 },
    ];
    const read = await store.chainRanges(ranges);
    expect(read.map((row) => row.id)).toEqual(['f-1', 's-t1', 's-t2', 's-t3', 's-t4', 's-t5', 's-t9', 's-t10', 's-t11']);
    // Every row (hasChildren too, even at a range's end or a fork point) is what chainPage reads.
    for (const row of read) {
      const [alone] = await store.chainPage({ sessionId: row.sessionId, fromDepth: row.depth, toDepth: row.depth });
      expect(row).toEqual(alone);
    }
    expect(read.find((row) => row.id === 's-t4')?.hasChildren).toBe(true);
    expect(read.find((row) => row.id === 's-t11')?.hasChildren).toBe(false);
    expect(await store.chainRanges([])).toEqual([]);
  });
}
