// A word a PostgreSQL store has seen common is never counted again (search-known-common.ts): turns
// and events are never deleted, so a word held by more than 1,000 rows stays so. Read on the wire
// (a loopback proxy sees each statement's text): the second search's statistics statement no
// longer counts the common word, and its hits and scores are those of the first search and of a
// store that knows nothing. A count read inside a transaction that rolls back teaches nothing.

import type { EventRecord, LedgerStore, SearchMatch, TurnSearchQuery } from '@agent-ledger/store';
import { appendRows, sessionRecord, sessionWithTurns, turnRecord } from '@agent-ledger/store/contract';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { type StatementProxy, statementProxy } from '../src/statement-proxy.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');

/** 1,200 rows: `shared` in each and `plenty` in 1,100 (both common past 1,000 rows), `okapi` in every 100th, `lemur` in every 100th after 50. */
const textAt = (index: number) =>
  [
    'shared text',
    index % 12 === 0 ? '' : 'plenty',
    index % 100 === 0 ? 'okapi' : '',
    index % 100 === 50 ? 'lemur' : '',
    `row${index}`,
  ].join(' ');
const ROWS = 1200;

function eventAt(index: number, tail: { seq: number; hash: string } | undefined): EventRecord {
  const seq = (tail?.seq ?? 0) + 1;
  return {
    ...{ id: `e-${index}`, channel: 'chat', externalId: `x-${index}`, author: 'ann', kind: 'message' },
    ...{ payload: JSON.stringify({ text: textAt(index) }), occurredAt: 5_000 + index, receivedAt: 6_000 + index },
    ...{ seq, prevHash: tail?.hash ?? null, hash: `h-${index}`, searchText: textAt(index) },
  };
}

const match = (text: string, mode: 'all' | 'any' | 'all-then-any' = 'any'): SearchMatch => ({ words: text.split(' '), mode });
const turnQuery = (text: string, mode?: 'all' | 'any', turnType?: 'normal'): TurnSearchQuery => ({
  match: match(text, mode),
  view: 'raw',
  filters: turnType ? { turnType } : {},
  limit: 40,
});

/** A word counted over its population, and one known common (search-commonness.ts's two kinds of row). */
const countedWords = (sql: string) => sql.match(/AS common, count\(\*\)::float8 AS n/g)?.length ?? 0;
const knownWords = (sql: string) => sql.match(/true AS common/g)?.length ?? 0;
/** A word counted in one kind on its own (search-statistics.ts: the count a kind needs when the population cannot tell). */
const kindCounts = (sql: string) => sql.match(/\(SELECT count\(\*\) FROM \(SELECT 1 FROM \w+ \w WHERE/g)?.length ?? 0;

describe.skipIf(!server)('PostgreSQL search: a word known common is never counted again', () => {
  let proxy: StatementProxy;
  let seed: LedgerStore;
  const stores: LedgerStore[] = [];
  /** A store of its own through the proxy: a new executor, which knows no common word yet. */
  const openStore = () => {
    const store = openPostgresStore(proxy.url);
    stores.push(store);
    return store;
  };
  /** The statistics statement among what `work` sent (the one that counts or weighs the words). */
  async function statisticsOf<T>(work: () => Promise<T>): Promise<{ result: T; sql: string }> {
    proxy.reset();
    const result = await work();
    const statements = proxy.statements().filter((sql) => sql.includes('sampled'));
    expect(statements).toHaveLength(1);
    return { result, sql: statements[0] as string };
  }

  beforeAll(async () => {
    proxy = await statementProxy(await freshPostgresDatabase(server as string, 'known_common'));
    seed = openPostgresStore(proxy.url);
    await sessionWithTurns(seed, 's', ROWS, (depth) => ({ searchText: textAt(depth), timestamp: 1_000 + depth }));
    const keys = Array.from({ length: ROWS }, (_, index) => ({ channel: 'chat', externalId: `x-${index}` }));
    await seed.appendEvents({ events: keys, seal: (index, tail) => eventAt(index, tail ?? undefined) });
  }, 60_000);

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  afterAll(async () => {
    await seed?.close();
    await proxy?.close();
  });

  it('counts a common word once, then reads it as common from what it knows, with the same hits and scores', async () => {
    const store = openStore();
    const first = await statisticsOf(() => store.searchTurns(turnQuery('shared okapi', 'any', 'normal')));
    expect([countedWords(first.sql), knownWords(first.sql)]).toEqual([2, 0]);
    const second = await statisticsOf(() => store.searchTurns(turnQuery('shared okapi', 'any', 'normal')));
    // `okapi` is counted again (a rare word may become common); `shared` is not.
    expect([countedWords(second.sql), knownWords(second.sql)]).toEqual([1, 1]);
    expect(second.result).toEqual(first.result);
    expect(first.result.hits.map((hit) => hit.snippet)).toEqual(Array(12).fill(expect.stringContaining('[okapi]')));

    // Known common in normal turns: common in the population of both types too, and in a mixed query.
    const both = await statisticsOf(() => store.searchTurns(turnQuery('lemur shared okapi')));
    expect([countedWords(both.sql), knownWords(both.sql)]).toEqual([2, 1]);
    const fresh = openStore();
    expect(both.result).toEqual(await fresh.searchTurns(turnQuery('lemur shared okapi')));
    expect(both.result.hits).toHaveLength(24);
  });

  it('counts nothing when every word is known common, and weighs a kind from what it knows (every word, events)', async () => {
    const store = openStore();
    const fresh = openStore();
    const first = await statisticsOf(() => store.searchTurns(turnQuery('shared plenty', 'any', 'normal')));
    expect(countedWords(first.sql)).toBe(2);
    const second = await statisticsOf(() => store.searchTurns(turnQuery('shared plenty', 'any', 'normal')));
    expect(second.sql).not.toContain('word_counts');
    expect(second.result).toEqual(first.result);
    expect(second.result.hits).toHaveLength(40);

    // Every word: more than 1,000 rows hold both, so no commonness is asked; each word's count in
    // normal turns would be read (1,001 rows) where the sample cannot tell, and is known instead.
    const every = await statisticsOf(() => store.searchTurns(turnQuery('plenty shared', 'all', 'normal')));
    expect(kindCounts(every.sql)).toBe(0);
    const unknown = await statisticsOf(() => fresh.searchTurns(turnQuery('plenty shared', 'all', 'normal')));
    expect(kindCounts(unknown.sql)).toBe(2);
    expect(every.result).toEqual(unknown.result);

    const events = await statisticsOf(() => store.searchEvents({ match: match('okapi shared'), limit: 40 }));
    expect(countedWords(events.sql)).toBe(2);
    const again = await statisticsOf(() => store.searchEvents({ match: match('okapi shared'), limit: 40 }));
    expect([countedWords(again.sql), knownWords(again.sql)]).toEqual([1, 1]);
    expect(again.result).toEqual(events.result);
    expect(again.result.hits).toHaveLength(12);
  });

  it('learns nothing from a count read inside a transaction that rolls back', async () => {
    const store = openStore();
    // 1,100 turns holding `ephemeral`, searched inside the transaction (common there), then rolled back.
    let inside = '';
    const rolledBack = store.transaction(async (tx) => {
      await tx.insertSession(sessionRecord('gone'));
      const turns: ReturnType<typeof turnRecord>[] = [];
      for (let depth = 0; depth < 1_100; depth += 1) {
        const fields = { searchText: 'ephemeral words', timestamp: 9_000 + depth };
        turns.push(turnRecord(`gone-t${depth}`, 'gone', turns.at(-1) ?? null, fields));
      }
      await appendRows(tx, 'gone', null, turns);
      inside = (await statisticsOf(() => tx.searchTurns(turnQuery('ephemeral okapi', 'any', 'normal')))).sql;
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(countedWords(inside)).toBe(2);

    // Outside, `ephemeral` is held by no row: it is counted again, not read as common, and the
    // search finds what a store that never saw the transaction finds.
    const after = await statisticsOf(() => store.searchTurns(turnQuery('ephemeral okapi', 'any', 'normal')));
    expect([countedWords(after.sql), knownWords(after.sql)]).toEqual([2, 0]);
    expect(after.result).toEqual(await openStore().searchTurns(turnQuery('ephemeral okapi', 'any', 'normal')));
    expect(after.result.hits).toHaveLength(12);
  });
});
