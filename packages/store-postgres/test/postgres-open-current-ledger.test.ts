// Opening a PostgreSQL ledger whose schema is already current: one statement on one connection,
// which the first read then reuses; the migration lock and the extra/*.sql files only when something
// is missing or changed, and then once however many stores open at once. Counted on the wire by a
// loopback proxy in front of the run's real server; skipped where there is none.

import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { type StatementProxy, statementProxy } from '../src/statement-proxy.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');

const EXTRA_FOLDER = new URL('../drizzle-postgres/extra/', import.meta.url);
const extras = readdirSync(EXTRA_FOLDER)
  .filter((name) => name.endsWith('.sql'))
  .map((name) => ({ tag: `extra/${name}`, text: readFileSync(new URL(name, EXTRA_FOLDER), 'utf8') }));
const searchExtra = extras.find((extra) => extra.tag === 'extra/search.sql');

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Opens a store, reads once, closes: what a process pays to answer its first call. */
async function openAndRead(url: string, options: { readonly?: boolean; mustExist?: boolean } = {}): Promise<void> {
  const store = openPostgresStore(url, options);
  try {
    expect(await store.getSession('none')).toBeUndefined();
  } finally {
    await store.close();
  }
}

/** How many times each extra's text was sent, by tag. */
function extrasSent(proxy: StatementProxy): Record<string, number> {
  const sent = proxy.statements();
  return Object.fromEntries(extras.map((extra) => [extra.tag, sent.filter((statement) => statement === extra.text).length]));
}

const never = Object.fromEntries(extras.map((extra) => [extra.tag, 0]));
const once = Object.fromEntries(extras.map((extra) => [extra.tag, 1]));

describe.skipIf(!server)('opening a PostgreSQL ledger', () => {
  let url: string;
  let proxy: StatementProxy;

  beforeEach(async () => {
    url = await freshPostgresDatabase(server as string, 'open');
    proxy = await statementProxy(url);
  });

  afterEach(async () => {
    await proxy.close();
  });

  it('costs one round trip on one connection when the schema is current, and the first read reuses the connection', async () => {
    expect(searchExtra).toBeDefined();
    await openAndRead(url);
    for (const options of [{}, { mustExist: true }, { readonly: true, mustExist: true }]) {
      proxy.reset();
      await openAndRead(proxy.url, options);
      expect(proxy.connections()).toBe(1);
      // The probe, then the read.
      expect(proxy.roundTrips()).toBe(2);
      expect(proxy.statements().some((statement) => statement.includes('pg_advisory_lock'))).toBe(false);
      expect(extrasSent(proxy)).toEqual(never);
    }
  });

  it('four stores opening one fresh database at once apply every migration and every extra exactly once', async () => {
    const stores = Array.from({ length: 4 }, () => openPostgresStore(proxy.url));
    try {
      await Promise.all(stores.map((store) => store.getSession('none')));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    expect(proxy.statements().filter((statement) => statement.startsWith('CREATE TABLE "agent_sessions"'))).toHaveLength(1);
    expect(extrasSent(proxy)).toEqual(once);
    const recorded = await withClient(url, async (client) => {
      const { rows } = await client.query<{ tag: string }>(
        "SELECT tag FROM nexus_migrations WHERE tag LIKE 'extra/%' ORDER BY tag",
      );
      return rows.map((row) => row.tag);
    });
    expect(recorded).toEqual(extras.map((extra) => extra.tag).sort());
  });

  it('applies again, once, the extra whose text changed since it was applied, and only that one', async () => {
    await openAndRead(url);
    // As if search.sql had shipped different text before: what it made is gone, and its hash differs.
    await withClient(url, (client) =>
      client.query(
        "DROP FUNCTION nexus_words_tsquery(text[], boolean); UPDATE nexus_migrations SET hash = 'older' WHERE tag = 'extra/search.sql'",
      ),
    );
    proxy.reset();
    await openAndRead(proxy.url);
    expect(extrasSent(proxy)).toEqual({ ...never, 'extra/search.sql': 1 });
    const made = await withClient(url, async (client) => {
      const { rows } = await client.query<{ present: boolean; hash: string }>(
        "SELECT to_regprocedure('nexus_words_tsquery(text[], boolean)') IS NOT NULL AS present, (SELECT hash FROM nexus_migrations WHERE tag = 'extra/search.sql') AS hash",
      );
      return rows[0];
    });
    expect(made?.present).toBe(true);
    expect(made?.hash).toMatch(/^[0-9a-f]{64}$/);
    proxy.reset();
    await openAndRead(proxy.url);
    expect(proxy.roundTrips()).toBe(2);
  });

  it('records the extras of a ledger migrated before they were recorded, and then opens it in one round trip', async () => {
    await openAndRead(url);
    await withClient(url, (client) => client.query("DELETE FROM nexus_migrations WHERE tag LIKE 'extra/%'"));
    proxy.reset();
    await openAndRead(proxy.url);
    expect(extrasSent(proxy)).toEqual(once);
    proxy.reset();
    await openAndRead(proxy.url);
    expect({ connections: proxy.connections(), roundTrips: proxy.roundTrips() }).toEqual({ connections: 1, roundTrips: 2 });
  });
});
