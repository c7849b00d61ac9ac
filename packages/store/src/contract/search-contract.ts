// The search part of the store contract: words in (never an engine's syntax), scores where higher
// is better, opaque cursors that page without repeating or skipping, the all-then-any fallback,
// filters and line scopes, the resolved view, hostile words that never throw, advanced syntax an
// engine refuses as SearchSyntaxError, embeddings that round-trip, and event search by channel.

import { InvalidInputError, SearchSyntaxError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventRecord } from '../event-store.ts';
import type { LedgerStore, TurnRecord } from '../index.ts';
import type { SearchMatch, TurnSearchHit, TurnSearchQuery } from '../search-store.ts';
import { appendRows, sessionRecord, turnRecord } from './ledger-rows.ts';
import type { StoreUnderTest } from './run-store-contract.ts';

const words = (text: string, mode: 'all' | 'any' | 'all-then-any' = 'all-then-any'): SearchMatch => ({
  words: text.split(' '),
  mode,
});

/** A turn whose searchable text is `text`. */
function said(id: string, sessionId: string, parent: TurnRecord | null, text: string, fields: Partial<TurnRecord> = {}) {
  return turnRecord(id, sessionId, parent, { content: [{ type: 'text', text }], searchText: text, ...fields });
}

/** A session holding one turn per text, oldest first. */
async function sessionSaying(store: LedgerStore, sessionId: string, texts: string[], fields: Partial<TurnRecord> = {}) {
  await store.insertSession(sessionRecord(sessionId));
  const turns: TurnRecord[] = [];
  for (const [index, text] of texts.entries()) {
    turns.push(said(`${sessionId}-t${index}`, sessionId, turns.at(-1) ?? null, text, fields));
  }
  await appendRows(store, sessionId, null, turns);
  return turns;
}

async function allPages(store: LedgerStore, query: TurnSearchQuery): Promise<TurnSearchHit[]> {
  const hits: TurnSearchHit[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages += 1) {
    const page = await store.searchTurns({ ...query, cursor });
    hits.push(...page.hits);
    if (page.nextCursor === null) return hits;
    cursor = page.nextCursor;
  }
  throw new Error('paging never ended');
}

const ids = (hits: ReadonlyArray<{ turnId: string }>) => hits.map((hit) => hit.turnId);

export function searchContract(subject: StoreUnderTest): void {
  describe('search', () => {
    let store: LedgerStore;
    afterEach(async () => {
      await store?.close();
    });

    it('finds the turns holding the words, with a snippet marking them, and nothing for absent words', async () => {
      store = await subject.open();
      await sessionSaying(store, 's', ['the gecko sleeps', 'a lemur jumps', 'the gecko and the lemur']);
      const found = await store.searchTurns({ match: words('gecko', 'all'), view: 'raw', limit: 10 });
      expect(new Set(ids(found.hits))).toEqual(new Set(['s-t0', 's-t2']));
      expect(found.nextCursor).toBeNull();
      for (const hit of found.hits) {
        expect(hit.snippet).toContain('[gecko]');
        expect(hit.canonicalTurnId).toBe(hit.turnId);
        expect(hit.sessionId).toBe('s');
      }
      expect((await store.searchTurns({ match: words('okapi'), view: 'raw', limit: 10 })).hits).toEqual([]);
      expect((await store.searchTurns({ match: { words: [], mode: 'any' }, view: 'raw', limit: 10 })).hits).toEqual([]);
      const quiet = await store.searchTurns({ match: words('lemur'), view: 'raw', limit: 10, snippets: false });
      expect(quiet.hits.map((hit) => hit.snippet)).toEqual(['', '']);
    });

    it('all-then-any: every word when some turn holds every word, else any word; all alone finds nothing then', async () => {
      store = await subject.open();
      await sessionSaying(store, 's', ['the gecko sleeps', 'a lemur jumps', 'an okapi grazes', 'gecko meets lemur']);
      const both = await store.searchTurns({ match: words('gecko lemur'), view: 'raw', limit: 10 });
      expect(ids(both.hits)).toEqual(['s-t3']);
      const either = await store.searchTurns({ match: words('gecko okapi'), view: 'raw', limit: 10 });
      expect(new Set(ids(either.hits))).toEqual(new Set(['s-t0', 's-t2', 's-t3']));
      expect((await store.searchTurns({ match: words('gecko okapi', 'all'), view: 'raw', limit: 10 })).hits).toEqual([]);
      const any = await store.searchTurns({ match: words('gecko lemur', 'any'), view: 'raw', limit: 10 });
      expect(new Set(ids(any.hits))).toEqual(new Set(['s-t0', 's-t1', 's-t3']));
      // The fallback is decided under the filters: before 1_002 no turn holds both words.
      const filtered = await store.searchTurns({
        match: words('gecko lemur'),
        view: 'raw',
        limit: 10,
        filters: { until: 1_001 },
      });
      expect(new Set(ids(filtered.hits))).toEqual(new Set(['s-t0', 's-t1']));
    });

    it('higher scores are better: the turn most about a word ranks first', async () => {
      store = await subject.open();
      await sessionSaying(store, 's', [
        'gecko',
        'a long turn about many things among which one gecko appears once, with plenty of other words around it',
        'gecko gecko gecko',
      ]);
      const { hits } = await store.searchTurns({ match: words('gecko'), view: 'raw', limit: 10 });
      expect(hits).toHaveLength(3);
      expect(hits.at(-1)?.turnId).toBe('s-t1');
      const scores = hits.map((hit) => hit.score);
      for (const score of scores) expect(Number.isFinite(score)).toBe(true);
      expect(scores).toEqual([...scores].sort((left, right) => right - left));
      expect(scores[0]).toBeGreaterThan(scores.at(-1) as number);
    });

    it('filters by role, type, author, time, line and sessions', async () => {
      store = await subject.open();
      const turns = await sessionSaying(store, 's', ['gecko one', 'gecko two', 'gecko three', 'gecko four']);
      await store.insertSession(sessionRecord('o'));
      await appendRows(store, 'o', null, [
        said('o-t0', 'o', null, 'gecko elsewhere', { role: 'assistant', metadata: { author: 'Maria' } }),
      ]);
      const search = async (filters: TurnSearchQuery['filters']) =>
        new Set(ids((await store.searchTurns({ match: words('gecko'), view: 'raw', limit: 50, filters })).hits));
      expect(await search({ role: 'assistant' })).toEqual(new Set(['o-t0']));
      expect(await search({ author: 'Maria' })).toEqual(new Set(['o-t0']));
      expect(await search({ turnType: 'compaction' })).toEqual(new Set());
      expect(await search({ since: 1_001, until: 1_002, role: 'user' })).toEqual(new Set(['s-t1', 's-t2']));
      const line = [{ sessionId: 's', fromDepth: 1, toDepth: 2 }];
      expect(await search({ scope: { line } })).toEqual(new Set(['s-t1', 's-t2']));
      expect(await search({ scope: { line, sessionIds: ['o'] } })).toEqual(new Set(['s-t1', 's-t2', 'o-t0']));
      expect(await search({ scope: { line: [] } })).toEqual(new Set());
      expect(turns).toHaveLength(4);
    });

    it('pages with cursors neither repeat nor skip, best first, in both views', async () => {
      store = await subject.open();
      const texts = Array.from({ length: 23 }, (_, index) => `gecko ${'filler '.repeat(index % 7)}number ${index}`);
      await sessionSaying(store, 's', texts);
      for (const view of ['raw', 'resolved'] as const) {
        const whole = await store.searchTurns({ match: words('gecko'), view, limit: 100 });
        expect(whole.hits).toHaveLength(23);
        for (const limit of [1, 3, 10]) {
          const paged = await allPages(store, { match: words('gecko'), view, limit });
          expect(ids(paged), `${view} ${limit}`).toEqual(ids(whole.hits));
          const scores = paged.map((hit) => hit.score);
          expect(scores).toEqual([...scores].sort((left, right) => right - left));
        }
        // A hit's own cursor resumes right after it.
        const fifth = whole.hits[4] as TurnSearchHit;
        const rest = await store.searchTurns({ match: words('gecko'), view, limit: 100, cursor: fifth.cursor });
        expect(ids(rest.hits)).toEqual(ids(whole.hits.slice(5)));
      }
    });

    it('refuses a cursor it did not make', async () => {
      store = await subject.open();
      await sessionSaying(store, 's', ['gecko']);
      for (const cursor of ['garbage!', 'not a cursor', Buffer.from('{"a":1}').toString('base64url')]) {
        const error = await store
          .searchTurns({ match: words('gecko'), view: 'raw', limit: 5, cursor })
          .catch((caught: unknown) => caught);
        expect(error, cursor).toBeInstanceOf(InvalidInputError);
        const events = await store.searchEvents({ match: words('gecko'), limit: 5, cursor }).catch((caught: unknown) => caught);
        expect(events, cursor).toBeInstanceOf(InvalidInputError);
      }
    });

    it('never throws on hostile words: they are words, not syntax', async () => {
      store = await subject.open();
      await sessionSaying(store, 's', ['a "quoted" AND (grouped) NEAR thing*', "col:umn ^ - + {} [] \\ '"]);
      const hostile = [
        '"',
        '""',
        'AND',
        'OR',
        'NOT',
        'NEAR',
        'NEAR(',
        '*',
        ':',
        '^',
        '(',
        ')',
        '-',
        '\\',
        "'",
        '{',
        '',
        ' ',
        '\0',
      ];
      for (const word of hostile) {
        for (const mode of ['all', 'any', 'all-then-any'] as const) {
          const match: SearchMatch = { words: [word, 'thing'], mode };
          const page = await store.searchTurns({ match, view: 'resolved', limit: 5 });
          expect(Array.isArray(page.hits), word).toBe(true);
          expect(Number.isFinite(await store.countTurnMatches(match))).toBe(true);
          expect(Array.isArray((await store.searchEvents({ match, limit: 5 })).hits)).toBe(true);
        }
      }
    });

    it('advanced syntax the engine refuses is SearchSyntaxError; valid syntax searches', async () => {
      store = await subject.open();
      await sessionSaying(store, 's', ['the gecko sleeps', 'a lemur jumps']);
      for (const advanced of ['"unbalanced', 'gecko AND', '(gecko']) {
        const error = await store.searchTurns({ match: { advanced }, view: 'raw', limit: 5 }).catch((caught: unknown) => caught);
        expect(error, advanced).toBeInstanceOf(SearchSyntaxError);
        const events = await store.searchEvents({ match: { advanced }, limit: 5 }).catch((caught: unknown) => caught);
        expect(events, advanced).toBeInstanceOf(SearchSyntaxError);
      }
      expect(ids((await store.searchTurns({ match: { advanced: 'lemur' }, view: 'raw', limit: 5 })).hits)).toEqual(['s-t1']);
      expect((await store.searchTurns({ match: { advanced: '  ' }, view: 'raw', limit: 5 })).hits).toEqual([]);
    });

    it('the resolved view reports a summarized match as the compaction standing in for it', async () => {
      store = await subject.open();
      await store.insertSession(sessionRecord('s'));
      const t0 = said('s-t0', 's', null, 'the gecko sleeps');
      const t1 = said('s-t1', 's', t0, 'a lemur jumps');
      const c = said('s-c', 's', t1, 'summary: a gecko slept, a lemur jumped', {
        role: null,
        turnType: 'compaction',
        summary: 'summary: a gecko slept, a lemur jumped',
        summarizedThroughTurnId: 's-t1',
        summarizedThroughDepth: 1,
        coversFromDepth: 0,
      });
      const t3 = said('s-t3', 's', c, 'the gecko woke up');
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

    it('weighs words by rarity: a rare word outranks a word most turns hold', async () => {
      store = await subject.open();
      // "maria" in most turns (a speaker's name), "okapi" in one long turn.
      await sessionSaying(store, 's', [
        'maria says hi',
        'maria maria, how was the trip',
        'thanks maria',
        'maria waves',
        'we finally saw an okapi near the river bank after walking along the trail for most of the long afternoon',
        'maria laughs',
      ]);
      const { hits } = await store.searchTurns({ match: words('maria okapi', 'any'), view: 'raw', limit: 10 });
      expect(hits).toHaveLength(6);
      expect(hits[0]?.turnId).toBe('s-t4');
    });

    it("compaction summaries repeating a turn's words change neither its score nor the order of turns", async () => {
      store = await subject.open();
      await store.insertSession(sessionRecord('s'));
      const t0 = said('s-t0', 's', null, 'the okapi drinks at the river');
      const t1 = said('s-t1', 's', t0, 'we counted the lemur troop at dawn');
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
        const compaction = said(`s-c${index}`, 's', parent, summary, {
          role: null,
          turnType: 'compaction',
          summary,
          summarizedThroughTurnId: 's-t1',
          summarizedThroughDepth: 1,
          coversFromDepth: 0,
        });
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

    it('counts turns and the turns matching a word', async () => {
      store = await subject.open();
      await sessionSaying(store, 's', ['gecko one', 'lemur two', 'gecko three']);
      expect(await store.countTurns()).toBe(3);
      expect(await store.countTurnMatches({ words: ['gecko'], mode: 'any' })).toBe(2);
      expect(await store.countTurnMatches({ words: ['gecko', 'lemur'], mode: 'any' })).toBe(3);
      expect(await store.countTurnMatches({ words: ['okapi'], mode: 'any' })).toBe(0);
      // all-then-any counts as a search chooses: every word when some turn holds them all.
      expect(await store.countTurnMatches({ words: ['gecko', 'three'], mode: 'all-then-any' })).toBe(1);
      expect(await store.countTurnMatches({ words: ['gecko', 'two'], mode: 'all-then-any' })).toBe(3);
      expect(await store.countTurnMatches({ words: ['gecko', 'two'], mode: 'all' })).toBe(0);
    });

    it('embeddings round-trip as Float32Array per model, replace, and say which turns still lack one', async () => {
      store = await subject.open();
      await sessionSaying(store, 's', ['one', 'two', 'three']);
      const line = [{ sessionId: 's', fromDepth: 0, toDepth: 2 }];
      expect((await store.turnsWithoutEmbedding('m', line)).map((row) => row.turnId)).toEqual(['s-t0', 's-t1', 's-t2']);
      const backing = new Float32Array([9, 0.25, -1.5, 3e-8, 7]);
      await store.putTurnEmbeddings('m', [
        { turnId: 's-t0', vector: backing.subarray(1, 4) },
        { turnId: 's-t2', vector: new Float32Array([1, 2, 3]) },
      ]);
      await store.putTurnEmbeddings('other', [{ turnId: 's-t1', vector: new Float32Array([4]) }]);
      expect(await store.turnsWithoutEmbedding('m', line)).toEqual([{ turnId: 's-t1', text: 'two' }]);
      const read = async (model: string, on = line) =>
        new Map((await store.turnEmbeddings(model, on)).map((row) => [row.turnId, [row.depth, [...row.vector]]]));
      expect(await read('m')).toEqual(
        new Map([
          ['s-t0', [0, [0.25, -1.5, Math.fround(3e-8)]]],
          ['s-t2', [2, [1, 2, 3]]],
        ]),
      );
      for (const row of await store.turnEmbeddings('m', line)) expect(row.vector).toBeInstanceOf(Float32Array);
      await store.putTurnEmbeddings('m', [{ turnId: 's-t2', vector: new Float32Array([5, 6]) }]);
      expect((await read('m')).get('s-t2')).toEqual([2, [5, 6]]);
      expect(await read('m', [{ sessionId: 's', fromDepth: 1, toDepth: 2 }])).toEqual(new Map([['s-t2', [2, [5, 6]]]]));
      expect(await read('other')).toEqual(new Map([['s-t1', [1, [4]]]]));
      expect(await store.turnEmbeddings('m', [])).toEqual([]);
      await store.putTurnEmbeddings('m', []);
    });

    it('searches events by words, filtered by channel, with the stored event and a snippet', async () => {
      store = await subject.open();
      const drafts = [
        { channel: 'mail', externalId: 'a', author: 'ann', text: 'the gecko escaped' },
        { channel: 'mail', externalId: 'b', author: 'bob', text: 'lunch at noon' },
        { channel: 'chat', externalId: 'c', author: 'ann', text: 'gecko found in the garden' },
      ];
      await store.appendEvents({
        events: drafts,
        seal: (index, tail): EventRecord => {
          const draft = drafts[index] as (typeof drafts)[number];
          const seq = (tail?.seq ?? 0) + 1;
          return {
            id: `e-${draft.externalId}`,
            channel: draft.channel,
            externalId: draft.externalId,
            author: draft.author,
            kind: 'message',
            payload: JSON.stringify({ text: draft.text }),
            occurredAt: 5_000 + index,
            receivedAt: 6_000 + index,
            seq,
            prevHash: tail?.hash ?? null,
            hash: `h-${draft.externalId}`,
            searchText: draft.text,
          };
        },
      });
      const everywhere = await store.searchEvents({ match: words('gecko'), limit: 10 });
      expect(new Set(everywhere.hits.map((hit) => hit.event.id))).toEqual(new Set(['e-a', 'e-c']));
      const mail = await store.searchEvents({ match: words('gecko'), limit: 10, filters: { channel: 'mail' } });
      expect(mail.hits).toHaveLength(1);
      const [hit] = mail.hits;
      expect(hit?.event).toEqual({
        id: 'e-a',
        channel: 'mail',
        externalId: 'a',
        author: 'ann',
        kind: 'message',
        payload: '{"text":"the gecko escaped"}',
        occurredAt: 5_000,
        receivedAt: 6_000,
        seq: 1,
        prevHash: null,
        hash: 'h-a',
        searchText: 'the gecko escaped',
      });
      expect(hit?.snippet).toContain('[gecko]');
      expect(Number.isFinite(hit?.score)).toBe(true);
      expect(
        (await store.searchEvents({ match: words('gecko'), limit: 10, filters: { channel: 'chat', author: 'bob' } })).hits,
      ).toEqual([]);
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.searchEvents({ match: words('gecko lunch', 'any'), limit: 1, cursor });
        paged.push(...page.hits.map((each) => each.event.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(new Set(paged)).toEqual(new Set(['e-a', 'e-b', 'e-c']));
      expect(paged).toHaveLength(3);
    });
  });
}
