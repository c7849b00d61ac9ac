// The search part of the store contract, continued: compactions in search. The resolved view
// reports a summarized match as the compaction standing in for it, and the summaries compactions
// write (which repeat the words of the turns they keep) never change how the turns score.

import { expect, it } from 'vitest';
import type { TurnRecord } from '../index.ts';
import type { TurnSearchQuery } from '../search-store.ts';
import { appendRows, sessionRecord } from './ledger-rows.ts';
import type { OpenStore } from './open-per-case.ts';
import { ids, said, words } from './search-rows.ts';

/** The resolved view: a summarized match is the compaction standing in for it. */
export function resolvedViewCases(open: OpenStore): void {
  it('the resolved view reports a summarized match as the compaction standing in for it', async () => {
    const store = await open();
    await store.insertSession(sessionRecord('s'));
    const t0 = said({ id: 's-t0', sessionId: 's', parent: null, text: 'the gecko sleeps' });
    const t1 = said({ id: 's-t1', sessionId: 's', parent: t0, text: 'a lemur jumps' });
    const c = said(
      { id: 's-c', sessionId: 's', parent: t1, text: 'summary: a gecko slept, a lemur jumped' },
      {
        role: null,
        turnType: 'compaction',
        summary: 'summary: a gecko slept, a lemur jumped',
        summarizedThroughTurnId: 's-t1',
        summarizedThroughDepth: 1,
        coversFromDepth: 0,
      },
    );
    const t3 = said({ id: 's-t3', sessionId: 's', parent: c, text: 'the gecko woke up' });
    await appendRows(store, 's', null, [t0, t1, c, t3]);
    const raw = await store.searchTurns({ match: words('gecko'), view: 'raw', limit: 10 });
    expect(new Set(ids(raw.hits))).toEqual(new Set(['s-t0', 's-c', 's-t3']));
    const resolved = await store.searchTurns({ match: words('gecko'), view: 'resolved', limit: 10 });
    // t0 is summarized by the compaction: it and the compaction's own match are one hit.
    expect(new Set(resolved.hits.map((hit) => hit.canonicalTurnId))).toEqual(new Set(['s-c', 's-t3']));
    const summarized = resolved.hits.find((hit) => hit.canonicalTurnId === 's-c');
    expect(['s-t0', 's-c']).toContain(summarized?.turnId);
    const lemur = await store.searchTurns({ match: words('lemur'), view: 'resolved', limit: 10 });
    expect(lemur.hits.map((hit) => hit.canonicalTurnId)).toEqual(['s-c']);
    // On a viewed line the given compaction stands in, and only for what it covers.
    const scope = { line: [{ sessionId: 's', fromDepth: 0, toDepth: 3 }] };
    const viewed = await store.searchTurns({
      match: words('lemur'),
      view: 'resolved',
      limit: 10,
      filters: { scope, turnType: 'normal' },
      lineCompaction: { id: 's-c', depth: 2, summarizedThroughDepth: 1 },
    });
    expect(viewed.hits.map((hit) => [hit.turnId, hit.canonicalTurnId, hit.canonicalSessionId])).toEqual([['s-t1', 's-c', 's']]);
    const uncovered = await store.searchTurns({
      match: words('lemur'),
      view: 'resolved',
      limit: 10,
      filters: { scope, turnType: 'normal' },
      lineCompaction: null,
    });
    expect(uncovered.hits.map((hit) => hit.canonicalTurnId)).toEqual(['s-t1']);
  });
}

/** Compaction summaries leave the scores of the turns they repeat as they were. */
export function summaryScoreCases(open: OpenStore): void {
  it("compaction summaries repeating a turn's words change neither its score nor the order of turns", async () => {
    const store = await open();
    await store.insertSession(sessionRecord('s'));
    const t0 = said({ id: 's-t0', sessionId: 's', parent: null, text: 'the okapi drinks at the river' });
    const t1 = said({ id: 's-t1', sessionId: 's', parent: t0, text: 'we counted the lemur troop at dawn' });
    await appendRows(store, 's', null, [t0, t1]);
    const query = {
      match: words('okapi lemur', 'any'),
      view: 'raw' as const,
      filters: { turnType: 'normal' as const },
      limit: 10,
    };
    // And unfiltered, where the summaries are hits too: the turns among them score as before.
    const unfiltered = { match: words('okapi lemur', 'any'), view: 'raw' as const, limit: 50 };
    const turnsOf = async (search: TurnSearchQuery) =>
      (await store.searchTurns(search)).hits.filter((hit) => hit.turnType === 'normal').map((hit) => [hit.turnId, hit.score]);
    const before = (await store.searchTurns(query)).hits.map((hit) => [hit.turnId, hit.score]);
    const beforeUnfiltered = await turnsOf(unfiltered);
    expect(beforeUnfiltered).toEqual(before);
    // A long session's compactions each re-render the lines they keep: here one line, 30 times.
    let parent = t1;
    const compactions: TurnRecord[] = [];
    for (let index = 0; index < 30; index += 1) {
      const summary = '[s-t0] the okapi drinks at the river';
      const compaction = said(
        { id: `s-c${index}`, sessionId: 's', parent: parent, text: summary },
        {
          role: null,
          turnType: 'compaction',
          summary,
          summarizedThroughTurnId: 's-t1',
          summarizedThroughDepth: 1,
          coversFromDepth: 0,
        },
      );
      compactions.push(compaction);
      parent = compaction;
    }
    await appendRows(store, 's', t1, compactions);
    const after = (await store.searchTurns(query)).hits.map((hit) => [hit.turnId, hit.score]);
    expect(after).toEqual(before);
    expect(await turnsOf(unfiltered)).toEqual(beforeUnfiltered);
    // The summaries are still found.
    const all = await store.searchTurns({ match: words('okapi'), view: 'raw', limit: 50 });
    expect(all.hits.filter((hit) => hit.turnType === 'compaction')).toHaveLength(30);
  });
}
