// The search part of the store contract: words in (never an engine's syntax), scores where higher
// is better, opaque cursors that page without repeating or skipping, the all-then-any fallback,
// filters and line scopes, the resolved view, hostile words that never throw, advanced syntax an
// engine refuses as SearchSyntaxError, embeddings that round-trip, and event search by channel.

import { InvalidInputError, SearchSyntaxError } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../event-store.ts';
import type { SearchMatch, TurnSearchHit, TurnSearchQuery } from '../search-store.ts';
import { appendRows, sessionRecord } from './ledger-rows.ts';
import { type OpenStore, openPerCase } from './open-per-case.ts';
import { resolvedViewCases, summaryScoreCases } from './search-compaction-contract.ts';
import { allPages, ids, said, sessionSaying, words } from './search-rows.ts';
import { searchAgreementCases } from './search-snippet-contract.ts';
import type { StoreUnderTest } from './store-under-test.ts';

export function searchContract(subject: StoreUnderTest): void {
  describe('search', () => {
    const open = openPerCase(subject);
    wordMatchCases(open);
    searchScoreCases(open);
    searchFilterCases(open);
    searchPagingCases(open);
    searchSyntaxCases(open);
    resolvedViewCases(open);
    summaryScoreCases(open);
    embeddingCases(open);
    eventSearchCases(open);
    searchAgreementCases(open);
  });
}

/** Words in: the turns holding them, every word or any, with a snippet marking them. */
function wordMatchCases(open: OpenStore): void {
  it('finds the turns holding the words, with a snippet marking them, and nothing for absent words', async () => {
    const store = await open();
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
    const store = await open();
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
}

/** Scores where higher is better, words weighed by how rare they are. */
function searchScoreCases(open: OpenStore): void {
  it('higher scores are better: the turn most about a word ranks first', async () => {
    const store = await open();
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

  it('weighs words by rarity: a rare word outranks a word most turns hold', async () => {
    const store = await open();
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
}

/** What a search is narrowed to, and the counts of turns and matches. */
function searchFilterCases(open: OpenStore): void {
  it('filters by role, type, author, time, line and sessions', async () => {
    const store = await open();
    const turns = await sessionSaying(store, 's', ['gecko one', 'gecko two', 'gecko three', 'gecko four']);
    await store.insertSession(sessionRecord('o'));
    await appendRows(store, 'o', null, [
      said(
        { id: 'o-t0', sessionId: 'o', parent: null, text: 'gecko elsewhere' },
        { role: 'assistant', metadata: { author: 'Maria' } },
      ),
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

  it('counts turns and the turns matching a word', async () => {
    const store = await open();
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
}

/** Opaque cursors: pages that neither repeat nor skip, and no cursor the engine did not make. */
function searchPagingCases(open: OpenStore): void {
  it('pages with cursors neither repeat nor skip, best first, in both views', async () => {
    const store = await open();
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
    const store = await open();
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
}

/** Words are never syntax; advanced syntax the engine refuses is the caller's error. */
function searchSyntaxCases(open: OpenStore): void {
  it('never throws on hostile words: they are words, not syntax', async () => {
    const store = await open();
    await sessionSaying(store, 's', ['a "quoted" AND (grouped) NEAR thing*', "col:umn ^ - + {} [] \\ '"]);
    const hostile = ['"', '""', 'AND', 'OR', 'NOT', 'NEAR', 'NEAR(', '*', ':', '^', '(', ')', '-', '\\', "'", '{', '', ' ', '\0'];
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
    const store = await open();
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
}

/** Embeddings per model, read back exactly, and the turns still without one. */
function embeddingCases(open: OpenStore): void {
  it('embeddings round-trip as Float32Array per model, replace, and say which turns still lack one', async () => {
    const store = await open();
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
}

/** Searching events: by words, by channel and author, page by page. */
function eventSearchCases(open: OpenStore): void {
  it('searches events by words, filtered by channel, with the stored event and a snippet', async () => {
    const store = await open();
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
}
