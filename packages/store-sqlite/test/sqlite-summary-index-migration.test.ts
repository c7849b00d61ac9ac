// Migration 0012 on a ledger written before it: compaction summaries move out of turns_fts into
// compactions_fts. The file is first brought back to what 0011 left (one index holding turns and
// summaries, as migration 0004 made it), then opened again: search finds what it found, snippets come
// from the right index, both indexes pass the integrity check, and new rows land in the right one.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appendRows, sessionRecord, turnRecord } from '@agent-ledger/store/contract';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/sqlite-store.ts';
import { undoTurnHashChain } from './support/undo-turn-hash-chain.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'nexus-migration-0012-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const said = (id: string, parent: Parameters<typeof turnRecord>[2], text: string, compaction = false) =>
  turnRecord(id, 's', parent, {
    content: [{ type: 'text', text }],
    searchText: text,
    ...(compaction
      ? {
          role: null,
          turnType: 'compaction',
          summary: text,
          summarizedThroughTurnId: 's-t1',
          summarizedThroughDepth: 1,
          coversFromDepth: 0,
        }
      : {}),
  });

/** The search objects as migrations 0004–0011 left them, and 0012 (and what came after it) not yet applied. */
function backToMigration0011(file: string): void {
  const sqlite = new Database(file);
  // Migrations after 0012, undone first, newest first (0014: the turns' hash chain; 0013: import
  // positions and leases).
  undoTurnHashChain(sqlite);
  sqlite.exec(`
    DROP TABLE leases;
    DROP TABLE transcript_positions;
    DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations);
  `);
  sqlite.exec(`
    DROP TRIGGER agent_turns_fts_insert;
    DROP TRIGGER agent_turns_compactions_fts_insert;
    DROP TABLE turns_fts;
    DROP TABLE compactions_fts;
    DROP VIEW normal_turn_texts;
    DROP VIEW compaction_texts;
    CREATE VIRTUAL TABLE turns_fts USING fts5(search_text, content = 'agent_turns', content_rowid = 'rowid',
      tokenize = 'porter unicode61 remove_diacritics 2');
    CREATE TRIGGER agent_turns_fts_insert AFTER INSERT ON agent_turns
    BEGIN INSERT INTO turns_fts (rowid, search_text) VALUES (NEW.rowid, NEW.search_text); END;
    INSERT INTO turns_fts (turns_fts) VALUES ('rebuild');
    DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations);
  `);
  sqlite.close();
}

describe('migration 0012: compaction summaries in an index of their own', () => {
  it('moves the summaries of an existing ledger; search, snippets, the integrity check and new rows work', async () => {
    const file = path.join(directory, 'ledger.db');
    let store = openSqliteStore({ path: file });
    await store.insertSession(sessionRecord('s'));
    const t0 = said('s-t0', null, 'the okapi drinks at the river');
    const t1 = said('s-t1', t0, 'we counted the lemur troop at dawn');
    const c = said('s-c', t1, '[s-t0] the okapi drinks at the river', true);
    await appendRows(store, 's', null, [t0, t1, c]);
    await store.close();

    backToMigration0011(file);
    const before = new Database(file, { readonly: true });
    // Before: the summary sits in turns_fts beside the turns.
    expect((before.prepare("SELECT count(*) AS n FROM turns_fts WHERE turns_fts MATCH 'okapi'").get() as { n: number }).n).toBe(
      2,
    );
    before.close();

    store = openSqliteStore({ path: file });
    const found = await store.searchTurns({ match: { words: ['okapi'], mode: 'any' }, view: 'raw', limit: 10 });
    expect(found.hits.map((hit) => [hit.turnId, hit.turnType]).sort()).toEqual([
      ['s-c', 'compaction'],
      ['s-t0', 'normal'],
    ]);
    for (const hit of found.hits) expect(hit.snippet).toContain('[okapi]');
    expect(await store.checkTurnSearchIndex()).toBeNull();
    // A turn and a compaction written after the migration land in their own index.
    const t3 = said('s-t3', c, 'the okapi came back at dusk');
    const c2 = said('s-c2', t3, '[s-t3] the okapi came back at dusk', true);
    await appendRows(store, 's', c, [t3, c2]);
    expect(await store.countTurnMatches({ words: ['okapi'], mode: 'any' })).toBe(4);
    expect(await store.checkTurnSearchIndex()).toBeNull();
    await store.close();

    const after = new Database(file, { readonly: true });
    const count = (index: string) =>
      (after.prepare(`SELECT count(*) AS n FROM ${index} WHERE ${index} MATCH 'okapi'`).get() as { n: number }).n;
    expect([count('turns_fts'), count('compactions_fts')]).toEqual([2, 2]);
    after.close();
  });
});
