// The maintenance part of the store contract: the scans `nexus doctor` runs, paged by position on a
// session's line, and the search index check. Through the async interface only.

import { describe, expect, it } from 'vitest';
import type { TurnRecord } from '../index.ts';
import { appendRows, sessionRecord, sessionWithTurns, turnRecord } from './ledger-rows.ts';
import { type OpenStore, openPerCase } from './open-per-case.ts';
import type { StoreUnderTest } from './store-under-test.ts';

/** Reads every page of a scan, `limit` rows at a time, checking each page stays within it. */
async function readAllPages<Row extends { sessionId: string; depth: number }>(
  scan: (page: { after?: { sessionId: string; depth: number }; limit: number }) => Promise<Row[]>,
  limit: number,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = await scan({ limit }); page.length > 0; ) {
    expect(page.length).toBeLessThanOrEqual(limit);
    rows.push(...page);
    const last = page.at(-1) as Row;
    page = await scan({ after: { sessionId: last.sessionId, depth: last.depth }, limit });
  }
  return rows;
}

/** A compaction right after `head` on its line; `fields` say what it summarized. */
function compactionAfter(id: string, head: TurnRecord, fields: Partial<TurnRecord>): TurnRecord {
  return turnRecord(id, head.sessionId, head, {
    turnType: 'compaction',
    role: null,
    content: null,
    summary: `summary ${id}`,
    coversFromDepth: 0,
    ...fields,
  });
}

export function maintenanceContract(subject: StoreUnderTest): void {
  describe('maintenance scans', () => {
    const open = openPerCase(subject);
    integrityCheckCases(open);
    compactionScanCases(open);
    turnScanCases(open);
  });
}

/** The engine's own checks of its storage and its search index. */
function integrityCheckCases(open: OpenStore): void {
  it('the storage and the search index of stored turns check out', async () => {
    const store = await open();
    expect(await store.checkStorageIntegrity()).toBeNull();
    expect(await store.checkTurnSearchIndex()).toBeNull();
    await sessionWithTurns(store, 'session-a', 5);
    expect(await store.checkStorageIntegrity()).toBeNull();
    expect(await store.checkTurnSearchIndex()).toBeNull();
  });
}

/** Every compaction with the turns its pointers name, for the pointer checks. */
function compactionScanCases(open: OpenStore): void {
  it('lists every compaction with its pointers resolved, by session and depth, page by page', async () => {
    const store = await open();
    const a = await sessionWithTurns(store, 'session-a', 4);
    const b = await sessionWithTurns(store, 'session-b', 2);
    const [a0, a1, a2, a3] = a as [TurnRecord, TurnRecord, TurnRecord, TurnRecord];
    const b1 = b[1] as TurnRecord;
    const first = compactionAfter('session-a-c4', a3, {
      summarizedThroughTurnId: a1.id,
      summarizedThroughDepth: 1,
      firstKeptTurnId: a2.id,
    });
    const second = compactionAfter('session-a-c5', first, {
      summarizedThroughTurnId: a2.id,
      summarizedThroughDepth: 2,
      previousCompactionId: first.id,
    });
    await appendRows(store, 'session-a', a3, [first, second]);
    const other = compactionAfter('session-b-c2', b1, { summarizedThroughTurnId: b1.id, summarizedThroughDepth: 1 });
    await appendRows(store, 'session-b', b1, [other]);

    const all = await store.compactionPointers({ limit: 100 });
    expect(all.map((row) => row.id)).toEqual(['session-a-c4', 'session-a-c5', 'session-b-c2']);
    expect(all[0]).toEqual({
      id: 'session-a-c4',
      sessionId: 'session-a',
      depth: 4,
      summarizedThroughTurnId: a1.id,
      firstKeptTurnId: a2.id,
      previousCompactionId: null,
      coversFromDepth: 0,
      summarizedThroughDepth: 1,
      throughExists: true,
      throughDepth: 1,
      keptDepth: 2,
    });
    expect(all[1]).toMatchObject({ previousCompactionId: 'session-a-c4', throughDepth: 2, keptDepth: null });
    expect(all[2]).toMatchObject({ sessionId: 'session-b', depth: 2, throughDepth: 1 });
    expect(a0.turnType).toBe('normal');

    const paged = await readAllPages((page) => store.compactionPointers(page), 1);
    expect(paged).toEqual(all);
    expect(await store.compactionPointers({ after: { sessionId: 'session-b', depth: 2 }, limit: 10 })).toEqual([]);
  });
}

/** Turns and forks the other checks look at: tool calls, sessions forked at a turn. */
function turnScanCases(open: OpenStore): void {
  it('lists every normal turn that calls a tool, content as stored, page by page', async () => {
    const store = await open();
    const call = (id: string) => ({
      role: 'assistant' as const,
      toolCallCount: 1,
      content: [{ type: 'tool_use', id, name: 'lookup', input: { q: id } }],
    });
    await sessionWithTurns(store, 'session-b', 4, (depth) => (depth % 2 === 1 ? call(`call-b${depth}`) : {}));
    await sessionWithTurns(store, 'session-a', 3, (depth) => (depth === 2 ? call('call-a2') : {}));
    const all = await store.toolCallingTurns({ limit: 100 });
    expect(all.map((turn) => [turn.sessionId, turn.depth])).toEqual([
      ['session-a', 2],
      ['session-b', 1],
      ['session-b', 3],
    ]);
    expect(all[0]).toEqual({
      id: 'session-a-t2',
      sessionId: 'session-a',
      depth: 2,
      content: [{ type: 'tool_use', id: 'call-a2', name: 'lookup', input: { q: 'call-a2' } }],
    });
    expect(await readAllPages((page) => store.toolCallingTurns(page), 2)).toEqual(all);
  });

  it('finds the sessions forked at turns, oldest first', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 'session-a', 3);
    const at = (turn: TurnRecord | undefined, id: string, createdAt: number) =>
      store.insertSession(
        sessionRecord(id, {
          parentSessionId: 'session-a',
          forkedFromTurnId: turn?.id ?? null,
          headTurnId: turn?.id ?? null,
          createdAt,
        }),
      );
    await at(turns[1], 'fork-late', 3_000);
    await at(turns[1], 'fork-early', 2_000);
    await at(turns[2], 'fork-head', 2_500);
    const forks = await store.sessionsForkedAt([turns[0]?.id ?? '', turns[1]?.id ?? '', turns[2]?.id ?? '', 'nothing']);
    expect(Object.fromEntries(forks)).toEqual({
      'session-a-t1': ['fork-early', 'fork-late'],
      'session-a-t2': ['fork-head'],
    });
    expect(await store.sessionsForkedAt([])).toEqual(new Map());
  });
}
