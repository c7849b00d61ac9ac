// bm25's statistics on a large PostgreSQL index come from a 200-row sample (search-statistics.ts).
// Read without an order, the sample was whatever a sequential scan met first: the table's physical
// order, which a rewrite (CLUSTER, VACUUM FULL, a restore) changes, and which PostgreSQL's
// synchronized scans change from one statement to the next on a large table. Then the same search
// on the same rows scored differently. Sampled along an index, the same rows give the same scores.

import type { LedgerStore, SearchMatch } from '@agent-ledger/store';
import { sessionWithTurns } from '@agent-ledger/store/contract';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');
const ROWS = 1200;
/** Every turn holds `shared` (common past 1,000 rows); later turns are longer. */
const textAt = (depth: number) => `shared ${'filler '.repeat(1 + Math.floor(depth / 100))}row${depth}`;
const shared: SearchMatch = { words: ['shared'], mode: 'all' };

async function scores(url: string): Promise<Array<[string, number]>> {
  // A new store each time: no average length kept from an earlier search.
  const store: LedgerStore = openPostgresStore(url);
  try {
    const page = await store.searchTurns({ match: shared, view: 'raw', limit: 50 });
    return page.hits.map((hit) => [hit.turnId, hit.score]);
  } finally {
    await store.close();
  }
}

async function rewrite(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe.skipIf(!server)("PostgreSQL bm25's sample of a large index", () => {
  it('is the same rows whatever the physical order: the same search scores the same after a table rewrite', async () => {
    const url = await freshPostgresDatabase(server as string, 'search_sample');
    const store = openPostgresStore(url);
    await sessionWithTurns(store, 's', ROWS, (depth) => ({ searchText: textAt(depth), timestamp: 1_000 + depth }));
    await store.close();
    await rewrite(url, 'ANALYZE agent_turns');
    const before = await scores(url);
    expect(before).toHaveLength(50);
    // Physically in id order now (`s-t0, s-t1, s-t10, s-t100, …`), not in the order written: the
    // first rows a scan meets are others, longer on average.
    await rewrite(url, 'CLUSTER agent_turns USING agent_turns_pkey; ANALYZE agent_turns');
    expect(await scores(url)).toEqual(before);
  }, 60_000);
});
