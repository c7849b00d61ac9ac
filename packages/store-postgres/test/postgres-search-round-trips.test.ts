// How many statements one PostgreSQL search sends, counted on the wire: a loopback proxy between
// the store and the real server counts the client's Sync and Query messages (each ends one round
// trip of the extended or the simple protocol). A search of several words learns which are common
// and their bm25 statistics in one statement (search-statistics.ts with search-commonness.ts),
// where the two were two statements.

import type { EventRecord, LedgerStore, SearchMatch } from '@agent-ledger/store';
import { sessionWithTurns } from '@agent-ledger/store/contract';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { type StatementProxy, statementProxy } from '../src/statement-proxy.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');

const words = (text: string, mode: 'all' | 'any' | 'all-then-any' = 'all-then-any'): SearchMatch => ({
  words: text.split(' '),
  mode,
});

/** 1,200 turns and as many events: `shared` in each (common past 1,000 rows), `okapi` in every 100th, `quetzal` in every 100th after 50. */
const textAt = (index: number) =>
  ['shared text', index % 100 === 0 ? 'okapi' : '', index % 100 === 50 ? 'quetzal' : '', `row${index}`].join(' ');
const ROWS = 1200;

function eventAt(index: number, tail: { seq: number; hash: string } | undefined): EventRecord {
  const seq = (tail?.seq ?? 0) + 1;
  return {
    id: `e-${index}`,
    channel: 'chat',
    externalId: `x-${index}`,
    author: 'ann',
    kind: 'message',
    payload: JSON.stringify({ text: textAt(index) }),
    occurredAt: 5_000 + index,
    receivedAt: 6_000 + index,
    seq,
    prevHash: tail?.hash ?? null,
    hash: `h-${index}`,
    searchText: textAt(index),
  };
}

describe.skipIf(!server)('statements of one PostgreSQL search, counted on the wire', () => {
  let proxy: StatementProxy;
  let store: LedgerStore;

  beforeAll(async () => {
    proxy = await statementProxy(await freshPostgresDatabase(server as string, 'search_round_trips'));
    store = openPostgresStore(proxy.url);
    await sessionWithTurns(store, 's', ROWS, (depth) => ({ searchText: textAt(depth), timestamp: 1_000 + depth }));
    const keys = Array.from({ length: ROWS }, (_, index) => ({ channel: 'chat', externalId: `x-${index}` }));
    await store.appendEvents({ events: keys, seal: (index, tail) => eventAt(index, tail ?? undefined) });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await proxy?.close();
  });

  it('plans and weighs words in one statement: the newest matches, common words and statistics, the page, the snippets', async () => {
    // Warm: the pool's first connection and the kept average lengths are not what is counted.
    await store.searchTurns({ match: words('shared okapi'), view: 'raw', limit: 5 });
    await store.searchEvents({ match: words('shared okapi'), limit: 5 });
    proxy.take();

    // Every word matches 12 turns: the every-word probe, one statement for `shared` being common and
    // `okapi`'s weight, the page, the snippets (this was five: the words' counts, then the statistics).
    const turns = await store.searchTurns({ match: words('shared okapi'), view: 'raw', limit: 5 });
    expect(proxy.take()).toBe(4);
    expect(turns.hits).toHaveLength(5);
    expect(turns.hits.every((hit) => hit.snippet.includes('[okapi]'))).toBe(true);

    // Nothing holds both: the probe finds none, the counts and statistics, the any-word match of the rarer, the page, the snippets.
    const any = await store.searchTurns({ match: words('okapi quetzal'), view: 'resolved', limit: 5 });
    expect(proxy.take()).toBe(5);
    expect(any.hits).toHaveLength(5);

    // Events: the probe, the counts and statistics, the page with its headlines.
    const events = await store.searchEvents({ match: words('shared okapi'), limit: 5 });
    expect(proxy.take()).toBe(3);
    expect(events.hits.every((hit) => hit.snippet.includes('[okapi]'))).toBe(true);
  });

  it('ranks by the rarer word only when a common word is typed with it (the common word is counted past 1,000 rows)', async () => {
    const both = await store.searchTurns({ match: words('shared okapi', 'all'), view: 'raw', limit: 20 });
    const alone = await store.searchTurns({ match: words('okapi', 'all'), view: 'raw', limit: 20 });
    expect(both.hits.map((hit) => [hit.turnId, hit.score])).toEqual(alone.hits.map((hit) => [hit.turnId, hit.score]));
    expect(both.hits).toHaveLength(12);
  });
});
