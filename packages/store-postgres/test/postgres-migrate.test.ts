// The PostgreSQL schema's migrations: applied once however many stores open one fresh database at
// once (an advisory lock), nothing written by a read-only opening, and a database that holds no
// ledger refused where one must exist. Against the run's real server; skipped where there is none.

import { DatabaseNotFoundError } from '@agent-ledger/core';
import { appendRows, sessionRecord, turnRecord } from '@agent-ledger/store/contract';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe.skipIf(!server)('PostgreSQL migrations', () => {
  it('four stores opening one fresh database at once all succeed, and the schema is migrated once', async () => {
    const url = await freshPostgresDatabase(server as string, 'migrate');
    const stores = Array.from({ length: 4 }, () => openPostgresStore(url));
    try {
      const found = await Promise.all(stores.map((store) => store.getSession('none')));
      expect(found).toEqual([undefined, undefined, undefined, undefined]);
      await stores[0]?.insertSession(sessionRecord('s1'));
      expect((await stores[3]?.getSession('s1'))?.id).toBe('s1');
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const applied = await withClient(url, async (client) => {
      const { rows } = await client.query<{ tag: string; count: number }>(
        'SELECT tag, count(*)::int AS count FROM nexus_migrations GROUP BY tag ORDER BY tag',
      );
      return rows;
    });
    expect(applied.length).toBeGreaterThan(0);
    for (const row of applied) expect(row.count).toBe(1);
    // A later opening finds nothing to apply and keeps the data.
    const again = openPostgresStore(url);
    try {
      expect((await again.getSession('s1'))?.id).toBe('s1');
    } finally {
      await again.close();
    }
  });

  it('0007: an older ledger gets the partial index on previous_compaction_id, and lookups use it', async () => {
    const url = await freshPostgresDatabase(server as string, 'partialindex');
    const store = openPostgresStore(url);
    await store.insertSession(sessionRecord('s'));
    await store.close();
    const definition = (client: pg.Client) =>
      client
        .query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_turns_previous_compaction'")
        .then(({ rows }) => rows[0]?.indexdef ?? '');
    // As 0006 left it: every turn in the index, 0007 not recorded.
    await withClient(url, async (client) => {
      await client.query(
        'DROP INDEX idx_turns_previous_compaction; CREATE INDEX idx_turns_previous_compaction ON agent_turns (previous_compaction_id); ' +
          "DELETE FROM nexus_migrations WHERE tag = '0007_previous_compaction_index_partial'",
      );
      expect(await definition(client)).not.toMatch(/WHERE/);
    });
    const reopened = openPostgresStore(url);
    expect(await reopened.compactionsFolding('none')).toEqual([]);
    await reopened.close();
    await withClient(url, async (client) => {
      expect(await definition(client)).toMatch(/WHERE \(previous_compaction_id IS NOT NULL\)/);
      await client.query('SET enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN SELECT id FROM agent_turns WHERE previous_compaction_id = 'x'",
      );
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('idx_turns_previous_compaction');
    });
  });

  it('0008: an older ledger gets an age index per turn type, and a walk of turns reads no summary', async () => {
    const url = await freshPostgresDatabase(server as string, 'typeage');
    const store = openPostgresStore(url);
    await store.insertSession(sessionRecord('s'));
    // 300 turns, then 100 summaries newer than all of them (a history imported, then compacted).
    const line = [turnRecord('s-0', 's', null, { searchText: 'shared words' })];
    for (let depth = 1; depth < 400; depth += 1) {
      const parent = line.at(-1) ?? null;
      const summary = `shared summary ${depth}`;
      const compaction = { turnType: 'compaction' as const, role: null, content: null, summary, searchText: summary };
      const fields =
        depth < 300
          ? { searchText: `shared words ${depth}` }
          : { ...compaction, summarizedThroughTurnId: 's-0', timestamp: 1_000_000 + depth };
      line.push(turnRecord(`s-${depth}`, 's', parent, fields));
    }
    await appendRows(store, 's', null, line);
    await store.close();
    const definition = (client: pg.Client) =>
      client
        .query<{ indexdef: string }>(
          "SELECT indexdef FROM pg_indexes WHERE indexname LIKE 'idx_turns_timestamp%' ORDER BY indexname",
        )
        .then(({ rows }) => rows.map((row) => row.indexdef).join('\n'));
    // As 0007 left it: one age index over every turn, 0008 not recorded.
    await withClient(url, async (client) => {
      await client.query(
        'DROP INDEX idx_turns_timestamp_normal, idx_turns_timestamp_compaction; CREATE INDEX idx_turns_timestamp ON agent_turns ("timestamp"); ' +
          "DELETE FROM nexus_migrations WHERE tag = '0008_search_newest_by_turn_type'",
      );
      expect(await definition(client)).toMatch(/idx_turns_timestamp ON public.agent_turns USING btree \("timestamp"\)/);
    });
    const reopened = openPostgresStore(url);
    expect(await reopened.getSession('s')).toBeDefined();
    await reopened.close();
    await withClient(url, async (client) => {
      expect((await definition(client)).split('\n')).toEqual([
        `CREATE INDEX idx_turns_timestamp_compaction ON public.agent_turns USING btree ("timestamp") WHERE (turn_type = 'compaction'::text)`,
        `CREATE INDEX idx_turns_timestamp_normal ON public.agent_turns USING btree ("timestamp") WHERE (turn_type = 'normal'::text)`,
      ]);
      // The newest turns holding a word, as a search of turns reads them when the word is common.
      await client.query('SET enable_seqscan = off; SET enable_bitmapscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT ctid FROM agent_turns t WHERE t.search_vector @@ to_tsquery('nexus_english', 'shared') " +
          "AND t.turn_type = 'normal' ORDER BY t.timestamp DESC, t.id DESC LIMIT 50",
      );
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toMatch(/^Limit \(actual rows=50 /);
      expect(text).toContain('Index Scan Backward using idx_turns_timestamp_normal');
      // The walk starts at the newest turn: none of the 100 newer summaries is read and set aside.
      expect(text).not.toMatch(/Rows Removed by Filter/);
    });
  });

  it('refuses a database without the ledger where one must exist, and writes nothing into it', async () => {
    const url = await freshPostgresDatabase(server as string, 'notledger');
    await withClient(url, (client) => client.query('CREATE TABLE other_things (id int)'));
    for (const options of [{ mustExist: true }, { readonly: true }]) {
      const store = openPostgresStore(url, options);
      try {
        const failure = await store.getSession('x').catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(DatabaseNotFoundError);
        expect((failure as Error).message).toContain('not a nexus ledger');
      } finally {
        await store.close();
      }
    }
    const tables = await withClient(url, async (client) => {
      const { rows } = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      );
      return rows.map((row) => row.name);
    });
    expect(tables).toEqual(['other_things']);
  });

  it('a read-only store reads a migrated ledger', async () => {
    const url = await freshPostgresDatabase(server as string, 'readonly');
    const writer = openPostgresStore(url);
    await writer.insertSession(sessionRecord('s1', { contextWindow: 1000 }));
    await writer.close();
    const reader = openPostgresStore(url, { readonly: true, mustExist: true });
    try {
      expect((await reader.getSession('s1'))?.contextWindow).toBe(1000);
    } finally {
      await reader.close();
    }
  });

  it('stored turns and events cannot be changed or removed, not even by hand-written SQL', async () => {
    const url = await freshPostgresDatabase(server as string, 'appendonly');
    const store = openPostgresStore(url);
    await store.insertSession(sessionRecord('s1'));
    await store.close();
    await withClient(url, async (client) => {
      await client.query(
        "INSERT INTO events (id, channel, external_id, kind, payload, occurred_at, received_at, seq, hash, search_text) VALUES ('e1', 'c', 'x', 'message', '{}', 1, 1, 1, 'h', 'hello world')",
      );
      await expect(client.query("UPDATE events SET kind = 'other' WHERE id = 'e1'")).rejects.toThrow(/append-only/);
      await expect(client.query("DELETE FROM events WHERE id = 'e1'")).rejects.toThrow(/append-only/);
      await expect(client.query('TRUNCATE events CASCADE')).rejects.toThrow(/append-only/);
      const { rows } = await client.query<{ matches: boolean }>(
        "SELECT search_vector @@ websearch_to_tsquery('english', 'worlds') AS matches FROM events WHERE id = 'e1'",
      );
      expect(rows[0]?.matches).toBe(true);
    });
  });

  it("migration 0004 gives an older ledger's turns the hashes an append gives them today, once", async () => {
    const url = await freshPostgresDatabase(server as string, 'turnhash');
    let store = openPostgresStore(url);
    await store.insertSession(sessionRecord('s'));
    const line = [turnRecord('s-0', 's', null)];
    for (let index = 1; index < 5; index += 1) line.push(turnRecord(`s-${index}`, 's', line.at(-1) ?? null));
    await appendRows(store, 's', null, line);
    await store.insertSession(sessionRecord('f', { parentSessionId: 's', forkedFromTurnId: 's-2', headTurnId: 's-2' }));
    await appendRows(store, 'f', line[2] ?? null, [turnRecord('f-3', 'f', line[2] ?? null)]);
    await store.close();
    const hashes = (client: pg.Client) =>
      client.query<{ id: string; hash: string | null }>('SELECT id, hash FROM agent_turns ORDER BY id').then(({ rows }) => rows);
    const written = await withClient(url, hashes);
    expect(written.every((row) => row.hash?.length === 64)).toBe(true);
    // Back to before 0004: no hash column, the old trigger, 0004 not applied.
    await withClient(url, async (client) => {
      await client.query(
        'DROP TRIGGER agent_turns_append_only ON agent_turns; DROP FUNCTION nexus_turn_hash_once(); ' +
          'ALTER TABLE agent_turns DROP COLUMN hash; ' +
          "CREATE TRIGGER agent_turns_append_only BEFORE UPDATE OR DELETE ON agent_turns FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('agent_turns'); " +
          "DELETE FROM nexus_migrations WHERE tag = '0004_turn_hash_chain'",
      );
    });
    store = openPostgresStore(url);
    await store.getSession('s');
    await store.close();
    expect(await withClient(url, hashes)).toEqual(written);
    await withClient(url, async (client) => {
      // Only the missing hash may ever be written; and one erased later stays erased.
      await expect(client.query("UPDATE agent_turns SET hash = 'x' WHERE id = 's-1'")).rejects.toThrow(/append-only/);
      await expect(client.query("UPDATE agent_turns SET role = 'assistant' WHERE id = 's-1'")).rejects.toThrow(/append-only/);
      await client.query("SET session_replication_role = 'replica'");
      await client.query("UPDATE agent_turns SET hash = NULL WHERE id = 's-1'");
    });
    store = openPostgresStore(url);
    await store.getSession('s');
    await store.close();
    expect((await withClient(url, hashes)).find((row) => row.id === 's-1')?.hash).toBeNull();
  });
});
