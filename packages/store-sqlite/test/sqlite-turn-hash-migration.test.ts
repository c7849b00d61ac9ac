// Migration 0014 on a ledger written before turns were hash-chained: the first writer to open it
// gives every turn the hash it would have had if written today (parents before children, forks
// included), once. A read-only opening writes nothing, and a hash erased after the migration is
// never filled in again (it is evidence for doctor, not something to repair quietly).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appendRows, sessionRecord, turnRecord } from '@agent-ledger/store/contract';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/sqlite-store.ts';
import { withTurnTriggersLifted } from '../src/testing.ts';
import { undoTurnHashChain } from './support/undo-turn-hash-chain.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'nexus-migration-0014-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function storedHashes(file: string): Map<string, string | null> {
  const sqlite = new Database(file, { readonly: true });
  try {
    const rows = sqlite.prepare('SELECT id, hash FROM agent_turns').all() as Array<{ id: string; hash: string | null }>;
    return new Map(rows.map((row) => [row.id, row.hash]));
  } finally {
    sqlite.close();
  }
}

function hasPendingTable(file: string): boolean {
  const sqlite = new Database(file, { readonly: true });
  try {
    return sqlite.prepare("SELECT 1 FROM sqlite_master WHERE name = 'turn_hashes_pending'").get() !== undefined;
  } finally {
    sqlite.close();
  }
}

describe('migration 0014: the turns of an older ledger get their hashes', () => {
  it('gives every turn, a fork included, the hash an append gives it today, once', async () => {
    const file = path.join(directory, 'ledger.db');
    let store = openSqliteStore({ path: file });
    await store.insertSession(sessionRecord('s'));
    const line = [turnRecord('s-0', 's', null)];
    for (let index = 1; index < 6; index += 1) line.push(turnRecord(`s-${index}`, 's', line.at(-1) ?? null));
    await appendRows(store, 's', null, line);
    await store.insertSession(sessionRecord('f', { parentSessionId: 's', forkedFromTurnId: 's-2', headTurnId: 's-2' }));
    const forked = turnRecord('f-3', 'f', line[2] ?? null);
    await appendRows(store, 'f', line[2] ?? null, [forked, turnRecord('f-4', 'f', forked)]);
    await store.close();
    const written = storedHashes(file);
    expect([...written.values()].every((hash) => typeof hash === 'string' && hash.length === 64)).toBe(true);

    const sqlite = new Database(file);
    undoTurnHashChain(sqlite);
    sqlite.close();
    // A reader applies no migration and fills nothing.
    const reader = openSqliteStore({ path: file, readonly: true, mustExist: true });
    await reader.close();
    expect(hasPendingTable(file)).toBe(false);

    store = openSqliteStore({ path: file });
    await store.close();
    expect(storedHashes(file)).toEqual(written);
    expect(hasPendingTable(file)).toBe(false);

    // Erased afterwards: the next writer leaves it erased.
    const raw = new Database(file);
    withTurnTriggersLifted(raw, () => raw.prepare("UPDATE agent_turns SET hash = NULL WHERE id = 's-4'").run());
    raw.close();
    store = openSqliteStore({ path: file });
    await store.close();
    expect(storedHashes(file).get('s-4')).toBeNull();
  });

  it('refuses every other update of a turn, and a second fill of its hash', async () => {
    const file = path.join(directory, 'triggers.db');
    await openSqliteStore({ path: file }).close();
    const sqlite = new Database(file);
    try {
      sqlite.exec(
        "INSERT INTO agent_sessions (id, context_window, reserve_tokens, keep_recent_tokens, created_at) VALUES ('s', 100, 10, 10, 1);" +
          "INSERT INTO agent_turns (id, session_id, depth, role, content, token_count, timestamp, cumulative_tokens) VALUES ('t', 's', 0, 'user', '[]', 1, 1, 1);",
      );
      expect(() => sqlite.prepare("UPDATE agent_turns SET hash = 'h1', role = 'assistant' WHERE id = 't'").run()).toThrow(
        /append-only/,
      );
      sqlite.prepare("UPDATE agent_turns SET hash = 'h1' WHERE id = 't'").run();
      expect(() => sqlite.prepare("UPDATE agent_turns SET hash = 'h2' WHERE id = 't'").run()).toThrow(/append-only/);
      expect(() => sqlite.prepare("UPDATE agent_turns SET content = '[1]' WHERE id = 't'").run()).toThrow(/append-only/);
    } finally {
      sqlite.close();
    }
  });
});
