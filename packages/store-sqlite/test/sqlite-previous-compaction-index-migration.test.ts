// Migration 0015 on a ledger from before it: the index on previous_compaction_id, which held a NULL
// entry for every normal turn, is rebuilt partial (compactions that fold in a previous one only).
// The file must come out with the partial index and the lookup it serves must still use it (the
// store contract's compactionsFolding cases check the answers on a new file).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appendRows, sessionRecord, turnRecord } from '@agent-ledger/store/contract';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/sqlite-store.ts';
import { undoPartialPreviousCompactionIndex } from './support/undo-turn-hash-chain.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'nexus-migration-0015-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function inspect(file: string): { sql: string; entries: number; plan: string } {
  const sqlite = new Database(file, { readonly: true });
  try {
    const { sql } = sqlite
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'idx_turns_previous_compaction'")
      .get() as { sql: string };
    const { entries } = sqlite
      .prepare(
        'SELECT count(*) AS entries FROM agent_turns INDEXED BY idx_turns_previous_compaction WHERE previous_compaction_id IS NOT NULL',
      )
      .get() as { entries: number };
    const plan = (
      sqlite
        .prepare('EXPLAIN QUERY PLAN SELECT id FROM agent_turns WHERE previous_compaction_id = ? ORDER BY depth')
        .all('x') as { detail: string }[]
    )
      .map((row) => row.detail)
      .join('; ');
    return { sql, entries, plan };
  } finally {
    sqlite.close();
  }
}

describe('migration 0015: the index on previous_compaction_id holds compactions only', () => {
  it('rebuilds the full index of an older ledger partial; and lookups still use it', async () => {
    const file = path.join(directory, 'ledger.db');
    let store = openSqliteStore({ path: file });
    await store.insertSession(sessionRecord('s'));
    const line = [turnRecord('s-0', 's', null)];
    for (let index = 1; index < 4; index += 1) line.push(turnRecord(`s-${index}`, 's', line.at(-1) ?? null));
    await appendRows(store, 's', null, line);
    await store.close();

    const older = new Database(file);
    undoPartialPreviousCompactionIndex(older);
    older.close();
    expect(inspect(file).sql).not.toMatch(/WHERE/);

    store = openSqliteStore({ path: file });
    await store.close();
    const migrated = inspect(file);
    expect(migrated.sql).toMatch(/WHERE "agent_turns"\."previous_compaction_id" IS NOT NULL/);
    expect(migrated.entries).toBe(0);
    expect(migrated.plan).toContain('USING INDEX idx_turns_previous_compaction');
  });
});
