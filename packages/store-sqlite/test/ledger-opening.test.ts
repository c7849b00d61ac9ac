// Opening a SQLite ledger never writes to what is not a healthy ledger, and a reader never changes
// a file: the bytes of the file and of its -wal, -shm and -journal side files are compared before
// and after each opening, on real files: a ledger, another program's databases, truncated and
// overwritten copies, an empty file, and a ledger older than this code.

import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appendRows, sessionRecord, turnRecord } from '@agent-ledger/store/contract';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fts5IndexProblem } from '../src/fts5-integrity.ts';
import { inspectLedgerFile } from '../src/ledger-file.ts';
import { connectionMode, openConnection } from '../src/open-connection.ts';
import { openSqliteStore } from '../src/sqlite-store.ts';
import { undoTurnHashChain } from './support/undo-turn-hash-chain.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'nexus-ledger-opening-'));
const LEDGER = path.join(directory, 'ledger.db');
let copies = 0;
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The file and its side files, as bytes: what a reader must leave exactly as it found. */
function fingerprint(file: string): Record<string, string> {
  return Object.fromEntries(
    ['', '-wal', '-shm', '-journal'].map((suffix) => [
      suffix || 'file',
      existsSync(file + suffix)
        ? createHash('sha256')
            .update(readFileSync(file + suffix))
            .digest('hex')
        : 'absent',
    ]),
  );
}

function copyOf(source: string, name: string): string {
  copies += 1;
  const file = path.join(directory, `${copies}-${name}`);
  writeFileSync(file, readFileSync(source));
  return file;
}

beforeAll(async () => {
  const store = openSqliteStore({ path: LEDGER });
  await store.insertSession(sessionRecord('s'));
  const first = turnRecord('t-0', 's', null, { searchText: 'pgbouncer 1.22.1 runs on db-2' });
  await appendRows(store, 's', null, [first, turnRecord('t-1', 's', first)]);
  await store.close();
  // A ledger in WAL mode, closed: no side files are left beside it.
  expect(fingerprint(LEDGER)).toMatchObject({ '-wal': 'absent', '-shm': 'absent' });
});

describe('a reader changes nothing', () => {
  it('reads a WAL ledger and leaves the file and its folder as they were; a write through it fails', async () => {
    const file = copyOf(LEDGER, 'read.db');
    const before = fingerprint(file);
    const reader = openSqliteStore({ path: file, readonly: true });
    expect((await reader.listSessions({ limit: 10, offset: 0 })).map((session) => session.id)).toEqual(['s']);
    await expect(reader.insertSession(sessionRecord('other'))).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await reader.close();
    expect(fingerprint(file)).toEqual(before);
  });

  it('a plain read-only better-sqlite3 connection would leave -wal and -shm files: the reason for the modes', () => {
    const file = copyOf(LEDGER, 'plain.db');
    const plain = new Database(file, { readonly: true });
    plain.prepare('SELECT count(*) FROM agent_sessions').get();
    plain.close();
    expect(fingerprint(file)['-shm']).not.toBe('absent');
  });

  it('opens a file this process may not write immutable: no lock, no side file, the rows read', () => {
    const file = copyOf(LEDGER, 'immutable.db');
    const before = fingerprint(file);
    const inspected = { ...inspectLedgerFile(file), writable: false };
    expect(connectionMode(inspected, 'read')).toBe('immutable');
    const sqlite = openConnection(inspected, { access: 'read', busyTimeoutMs: 100 });
    expect(sqlite.readonly).toBe(true);
    expect(sqlite.prepare('SELECT id FROM agent_sessions').all()).toEqual([{ id: 's' }]);
    sqlite.close();
    expect(fingerprint(file)).toEqual(before);
  });

  it('a check (inspect) of a file it may not write runs on a private copy, so FTS5 integrity-check runs', () => {
    const file = copyOf(LEDGER, 'inspect.db');
    const before = fingerprint(file);
    const inspected = { ...inspectLedgerFile(file), writable: false };
    expect(connectionMode(inspected, 'inspect')).toBe('private-copy');
    const sqlite = openConnection(inspected, { access: 'inspect', busyTimeoutMs: 100 });
    expect(fts5IndexProblem(sqlite, ['turns_fts', 'compactions_fts', 'events_fts'])).toBeNull();
    sqlite.close();
    expect(fingerprint(file)).toEqual(before);
  });
});

describe('FTS5 integrity-check on connections that may not write', () => {
  function withIndexEntryDropped(file: string): void {
    const sqlite = new Database(file);
    // The index loses a turn's words; the turn stays: a mismatch FTS5's check with rank 1 finds.
    sqlite
      .prepare(
        "INSERT INTO turns_fts (turns_fts, rowid, search_text) SELECT 'delete', rowid, search_text FROM agent_turns WHERE id = 't-0'",
      )
      .run();
    sqlite.close();
  }

  it('finds a real mismatch, and none on a good index, on read-only, query_only and private-copy connections', () => {
    const good = copyOf(LEDGER, 'fts-good.db');
    const bad = copyOf(LEDGER, 'fts-bad.db');
    withIndexEntryDropped(bad);
    for (const file of [good, bad]) {
      const inspected = inspectLedgerFile(file);
      for (const [access, writable] of [
        ['read', true],
        ['read', false],
        ['inspect', false],
      ] as const) {
        const sqlite = openConnection({ ...inspected, writable }, { access, busyTimeoutMs: 100 });
        const problem = fts5IndexProblem(sqlite, ['turns_fts']);
        if (file === good) expect(problem, `${access} ${writable}`).toBeNull();
        else expect(problem, `${access} ${writable}`).toMatch(/^turns_fts: .*malformed.*rebuild/);
        // A query_only connection is query_only again afterwards.
        if (access === 'read' && writable) expect(sqlite.pragma('query_only', { simple: true })).toBe(1);
        sqlite.close();
      }
    }
  });
});

describe('a writer refuses what is not a healthy ledger, and writes nothing to it', () => {
  function foreignDatabase(journal: 'wal' | 'delete'): string {
    copies += 1;
    const file = path.join(directory, `${copies}-foreign-${journal}.sqlite`);
    const other = new Database(file);
    other.pragma(`journal_mode = ${journal}`);
    other.exec(
      "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://example.org')",
    );
    other.close();
    return file;
  }

  it.each(['wal', 'delete'] as const)(
    'another program’s database (journal %s): refused to read and to write',
    async (journal) => {
      const file = foreignDatabase(journal);
      const before = fingerprint(file);
      for (const options of [{}, { readonly: true }, { inspect: true }, { mustExist: true }]) {
        expect(() => openSqliteStore({ path: file, ...options }), JSON.stringify(options)).toThrow(
          /It is a SQLite database, but not a nexus ledger \(it has no agent_sessions table; its tables: moz_places\)/,
        );
        expect(fingerprint(file)).toEqual(before);
      }
    },
  );

  it('a truncated ledger, at several lengths: refused as damaged, cut short, by readers and writers alike', () => {
    const size = statSync(LEDGER).size;
    for (const length of [60, 4096, size / 2, size - 4096]) {
      const file = copyOf(LEDGER, `cut-${length}.db`);
      truncateSync(file, length);
      const before = fingerprint(file);
      for (const options of [{}, { readonly: true }, { inspect: true }, { checkIntegrity: true }]) {
        expect(() => openSqliteStore({ path: file, ...options }), `${length} ${JSON.stringify(options)}`).toThrow(
          /is damaged: .*cut short\. Nothing was written to it\..*\.dump \| sed/,
        );
        expect(fingerprint(file)).toEqual(before);
      }
    }
  });

  it('a ledger with a page overwritten: a writer that checks integrity refuses it; a reader still reads what it can', async () => {
    const file = copyOf(LEDGER, 'garbage.db');
    const sqlite = new Database(file);
    const { pageno } = sqlite.prepare("SELECT pageno FROM dbstat WHERE name = 'agent_sessions'").get() as { pageno: number };
    const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
    sqlite.close();
    const bytes = readFileSync(file);
    bytes.fill(0xa5, (pageno - 1) * pageSize, pageno * pageSize);
    writeFileSync(file, bytes);
    const before = fingerprint(file);
    expect(() => openSqliteStore({ path: file, checkIntegrity: true })).toThrow(/is damaged: .*Nothing was written to it/);
    expect(fingerprint(file)).toEqual(before);
    const reader = openSqliteStore({ path: file, readonly: true });
    await expect(reader.listSessions({ limit: 1, offset: 0 })).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(await reader.checkStorageIntegrity()).toMatch(/malformed|btreeInitPage|Page/);
    await reader.close();
    expect(fingerprint(file)).toEqual(before);
  });

  it('a zero-byte file (what touch makes) and a SQLite file with no tables become ledgers; readers refuse both', async () => {
    const empty = path.join(directory, 'touched.db');
    writeFileSync(empty, '');
    const blank = path.join(directory, 'blank.db');
    new Database(blank).exec('VACUUM');
    for (const file of [empty, blank]) {
      const before = fingerprint(file);
      expect(() => openSqliteStore({ path: file, readonly: true })).toThrow(/No ledger database at/);
      expect(() => openSqliteStore({ path: file, mustExist: true })).toThrow(/No ledger database at/);
      expect(fingerprint(file)).toEqual(before);
      const writer = openSqliteStore({ path: file });
      await writer.insertSession(sessionRecord('n'));
      await writer.close();
      expect(inspectLedgerFile(file).kind).toBe('sqlite');
    }
  });
});

describe('a ledger older than this code', () => {
  it('is read as it is by a reader, migrated first by a reader that asks for upgrade, and never by a check', async () => {
    const file = copyOf(LEDGER, 'older.db');
    const raw = new Database(file);
    undoTurnHashChain(raw);
    raw.close();
    const older = fingerprint(file);
    const reader = openSqliteStore({ path: file, readonly: true });
    await reader.close();
    expect(fingerprint(file)).toEqual(older);
    const upgraded = openSqliteStore({ path: file, readonly: true, upgrade: true });
    expect((await upgraded.listSessions({ limit: 10, offset: 0 })).map((session) => session.id)).toEqual(['s']);
    await upgraded.close();
    expect(fingerprint(file)).not.toEqual(older);
    const columns = new Database(file, { fileMustExist: true });
    expect(columns.prepare("SELECT 1 FROM pragma_table_info('agent_turns') WHERE name = 'hash'").get()).toBeTruthy();
    columns.close();
  });
});
