// The import part of the store contract: what transcript imports remember (sources → sessions,
// source lines → turns), so a re-run skips what it has. Through the async interface only.

import { describe, expect, it } from 'vitest';
import { appendRows, sessionWithTurns, turnRecord } from './ledger-rows.ts';
import { type OpenStore, openPerCase } from './open-per-case.ts';
import type { StoreUnderTest } from './store-under-test.ts';

/** The transcript source `key`, imported into `sessionId`. */
function source(key: string, sessionId: string) {
  return {
    key,
    format: 'claude-code',
    sessionId,
    path: `/tmp/${key}.jsonl`,
    importedAt: 5_000,
  };
}

export function importContract(subject: StoreUnderTest): void {
  describe('transcript imports', () => {
    const open = openPerCase(subject);
    transcriptSourceCases(open);
    transcriptLineCases(open);
    transcriptAtomicityCases(open);
    turnAtTimeCases(open);
  });
}

/** What an import remembers of a file: the source it became, where the next run resumes. */
function transcriptSourceCases(open: OpenStore): void {
  it('records a source once and finds it by key', async () => {
    const store = await open();
    await sessionWithTurns(store, 'session-a', 1);
    await sessionWithTurns(store, 'session-b', 1);
    expect(await store.getTranscriptSource('cc:one')).toBeUndefined();
    await store.insertTranscriptSource(source('cc:one', 'session-a'));
    expect(await store.getTranscriptSource('cc:one')).toEqual(source('cc:one', 'session-a'));
    // A second import of the same source cannot take it over: refused, the first record stays.
    await expect(store.insertTranscriptSource(source('cc:one', 'session-b'))).rejects.toThrow();
    expect((await store.getTranscriptSource('cc:one'))?.sessionId).toBe('session-a');
    await store.insertTranscriptSource({ ...source('cc:two', 'session-b'), path: null });
    expect((await store.getTranscriptSource('cc:two'))?.path).toBeNull();
  });

  it('records where the next import of a file resumes, and moves it either way', async () => {
    const store = await open();
    expect(await store.getTranscriptPosition('/w/a.jsonl')).toBeUndefined();
    const first = { path: '/w/a.jsonl', bytes: 4_096, line: 12, head: 'sha256:aa', updatedAt: 1_000 };
    await store.putTranscriptPosition(first);
    expect(await store.getTranscriptPosition('/w/a.jsonl')).toEqual(first);
    // Large files: positions past 2^32 bytes round-trip exactly.
    const later = { path: '/w/a.jsonl', bytes: 5_000_000_000, line: 80_000_001, head: 'sha256:bb', updatedAt: 2_000 };
    await store.putTranscriptPosition(later);
    expect(await store.getTranscriptPosition('/w/a.jsonl')).toEqual(later);
    // Back (a file that was replaced): the position follows, it is only a hint.
    await store.putTranscriptPosition({ ...first, updatedAt: 3_000 });
    expect(await store.getTranscriptPosition('/w/a.jsonl')).toEqual({ ...first, updatedAt: 3_000 });
    expect(await store.getTranscriptPosition('/w/b.jsonl')).toBeUndefined();
  });
}

/** A source's lines and the turns holding them. */
function transcriptLineCases(open: OpenStore): void {
  it('maps lines to the turns holding them, per source; unknown lines are absent', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 'session-a', 2);
    await store.insertTranscriptSource(source('cc:one', 'session-a'));
    await store.insertTranscriptSource(source('cc:other', 'session-a'));
    await store.recordTranscriptLines('cc:one', [
      { lineId: 'header', turnId: null },
      { lineId: 'l1', turnId: turns[0]?.id ?? null },
      { lineId: 'l2', turnId: turns[1]?.id ?? null },
      { lineId: 'l2-tail', turnId: turns[1]?.id ?? null },
    ]);
    const found = await store.transcriptLineTurns('cc:one', ['header', 'l1', 'l2', 'l2-tail', 'never']);
    expect(Object.fromEntries(found)).toEqual({
      header: null,
      l1: 'session-a-t0',
      l2: 'session-a-t1',
      'l2-tail': 'session-a-t1',
    });
    // One line asked alone answers the same way.
    expect(await store.transcriptLineTurns('cc:one', ['l2'])).toEqual(new Map([['l2', 'session-a-t1']]));
    expect(await store.transcriptLineTurns('cc:one', ['never'])).toEqual(new Map());
    // The same line id in another source is another line.
    expect(await store.transcriptLineTurns('cc:other', ['l1'])).toEqual(new Map());
    expect(await store.transcriptLineTurns('cc:one', [])).toEqual(new Map());
  });

  it('a line recorded again keeps its first turn (a re-run never moves a line)', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 'session-a', 2);
    await store.insertTranscriptSource(source('cc:one', 'session-a'));
    await store.recordTranscriptLines('cc:one', [{ lineId: 'l1', turnId: turns[0]?.id ?? null }]);
    await store.recordTranscriptLines('cc:one', [
      { lineId: 'l1', turnId: turns[1]?.id ?? null },
      { lineId: 'l2', turnId: turns[1]?.id ?? null },
    ]);
    await store.recordTranscriptLines('cc:one', [{ lineId: 'l2', turnId: null }]);
    expect(Object.fromEntries(await store.transcriptLineTurns('cc:one', ['l1', 'l2']))).toEqual({
      l1: 'session-a-t0',
      l2: 'session-a-t1',
    });
  });

  it('reads back thousands of lines of one source in one call', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 'session-a', 3);
    await store.insertTranscriptSource(source('cc:big', 'session-a'));
    const lines = Array.from({ length: 2_345 }, (_, index) => ({
      lineId: `line-${index}`,
      turnId: index % 7 === 0 ? null : (turns[index % 3]?.id ?? null),
    }));
    await store.recordTranscriptLines('cc:big', lines);
    const found = await store.transcriptLineTurns('cc:big', [...lines.map((line) => line.lineId), 'line-x']);
    expect(found.size).toBe(lines.length);
    for (const line of lines) expect(found.get(line.lineId)).toBe(line.turnId);
  });
}

/** Lines and sources are written all or none. */
function transcriptAtomicityCases(open: OpenStore): void {
  it('records a batch of lines all or none: a line naming no turn refuses the whole batch', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 'session-a', 1);
    await store.insertTranscriptSource(source('cc:one', 'session-a'));
    await expect(
      store.recordTranscriptLines('cc:one', [
        { lineId: 'l1', turnId: turns[0]?.id ?? null },
        { lineId: 'l2', turnId: 'no-such-turn' },
      ]),
    ).rejects.toThrow();
    expect(await store.transcriptLineTurns('cc:one', ['l1', 'l2'])).toEqual(new Map());
    // Lines of a source never recorded are refused too.
    await expect(store.recordTranscriptLines('cc:unknown', [{ lineId: 'l1', turnId: null }])).rejects.toThrow();
  });

  it('source and lines written in a transaction that fails are not there', async () => {
    const store = await open();
    const turns = await sessionWithTurns(store, 'session-a', 1);
    await expect(
      store.transaction(async (tx) => {
        await tx.insertTranscriptSource(source('cc:one', 'session-a'));
        await tx.recordTranscriptLines('cc:one', [{ lineId: 'l1', turnId: turns[0]?.id ?? null }]);
        expect(await tx.transcriptLineTurns('cc:one', ['l1'])).toEqual(new Map([['l1', 'session-a-t0']]));
        throw new Error('interrupted');
      }),
    ).rejects.toThrow('interrupted');
    expect(await store.getTranscriptSource('cc:one')).toBeUndefined();
    await store.transaction(async (tx) => {
      await tx.insertTranscriptSource(source('cc:one', 'session-a'));
      await tx.recordTranscriptLines('cc:one', [{ lineId: 'l1', turnId: turns[0]?.id ?? null }]);
    });
    expect(await store.transcriptLineTurns('cc:one', ['l1'])).toEqual(new Map([['l1', 'session-a-t0']]));
  });
}

/** The turn a line had reached at a time: where a subagent's transcript forks its parent. */
function turnAtTimeCases(open: OpenStore): void {
  it('finds the newest normal turn of a session line at or before a time', async () => {
    const store = await open();
    // Timestamps 1000, 1010, 1020 at depths 0–2, then a compaction at 1030 and a turn at 1040.
    const turns = await sessionWithTurns(store, 'session-a', 3, (depth) => ({ timestamp: 1_000 + depth * 10 }));
    const head = turns[2] ?? null;
    const compaction = turnRecord('session-a-c3', 'session-a', head, {
      turnType: 'compaction',
      role: null,
      content: null,
      summary: 'the first three turns',
      summarizedThroughTurnId: 'session-a-t1',
      summarizedThroughDepth: 1,
      coversFromDepth: 0,
      timestamp: 1_030,
    });
    const after = turnRecord('session-a-t4', 'session-a', compaction, { timestamp: 1_040 });
    await appendRows(store, 'session-a', head, [compaction, after]);
    expect(await store.turnAtTime('session-a', 999)).toBeUndefined();
    expect(await store.turnAtTime('session-a', 1_000)).toBe('session-a-t0');
    expect(await store.turnAtTime('session-a', 1_015)).toBe('session-a-t1');
    // A compaction is no point to fork a subagent at: the turn before it.
    expect(await store.turnAtTime('session-a', 1_035)).toBe('session-a-t2');
    expect(await store.turnAtTime('session-a', 9_999)).toBe('session-a-t4');
    expect(await store.turnAtTime('no-such-session', 9_999)).toBeUndefined();
  });
}
