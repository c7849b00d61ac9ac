// How many statements one PostgreSQL search sends, counted on the wire: a loopback proxy between
// the store and the real server counts the client's Sync and Query messages (each ends one round
// trip of the extended or the simple protocol). A search of several words learns which are common
// and their bm25 statistics in one statement (search-statistics.ts with search-commonness.ts),
// where the two were two statements.

import net from 'node:net';
import type { EventRecord, LedgerStore, SearchMatch } from '@agent-ledger/store';
import { sessionWithTurns } from '@agent-ledger/store/contract';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');

/** Counts the frontend messages that end a round trip: Sync ('S') and simple Query ('Q'). */
function messageCounter(onRoundTrip: () => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      // The startup message has no type byte: a length, then the protocol (or an SSL request).
      if (!started) {
        if (pending.length < 4) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        started = pending.readInt32BE(4) !== 80877103;
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < length + 1) return;
      const type = String.fromCharCode(pending[0] as number);
      if (type === 'S' || type === 'Q') onRoundTrip();
      pending = pending.subarray(length + 1);
    }
  };
}

interface CountingProxy {
  url: string;
  /** Round trips started since the last call, then starts counting again. */
  take(): number;
  close(): Promise<void>;
}

async function countingProxy(target: string): Promise<CountingProxy> {
  const targetUrl = new URL(target);
  let count = 0;
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(targetUrl.port || 5432), targetUrl.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    const counted = messageCounter(() => {
      count += 1;
    });
    client.on('data', (chunk: Buffer) => {
      counted(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    take: () => {
      const taken = count;
      count = 0;
      return taken;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

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
  let proxy: CountingProxy;
  let store: LedgerStore;

  beforeAll(async () => {
    proxy = await countingProxy(await freshPostgresDatabase(server as string, 'search_round_trips'));
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
