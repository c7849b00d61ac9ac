// The CLI cases of issue 13, each as a user met it: a typo in --db must not create an empty ledger,
// global options work before the command, hints work when pasted, errors name flags, events cut
// from a channel's end are found against a checkpoint, a re-delivery that differs is a conflict, and
// a model API that never answers is bounded by --timeout with a word while waiting.

import { execFile } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { type LoopbackApi, startLoopbackApi } from '@agent-ledger/loopback-api';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import BetterSqlite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { runCli, tempFolder } from './run-cli.ts';

const BIN = BUILT_CLI;

let temp: ReturnType<typeof tempFolder>;
let api: LoopbackApi | undefined;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(async () => {
  await api?.close();
  api = undefined;
  temp.cleanup();
});

describe('reads never create a database', () => {
  const READS = [
    ['doctor'],
    ['search', 'pgbouncer'],
    ['events', 'verify'],
    ['events', 'list', '--channel', 'c'],
    ['events', 'checkpoint'],
    ['session', 'list'],
    ['context', 't_1'],
    ['history', 't_1'],
    ['topics', 's_1'],
  ];

  it.each(READS)('nexus %s --db typo.db refuses, names the path, and leaves no file', async (...words) => {
    const typo = path.join(temp.folder, 'typo.db');
    const run = await runCli([...words, '--db', typo, '--json']);
    expect(run.code).toBe(1);
    expect(run.json()).toEqual({ error: { code: 'DATABASE_NOT_FOUND', message: expect.stringContaining(typo) } });
    expect(existsSync(typo)).toBe(false);
  });

  it('a read refuses an empty file, a directory, a non-SQLite file and another program’s database, and writes nothing to them', async () => {
    const empty = path.join(temp.folder, 'empty.db');
    writeFileSync(empty, '');
    const text = path.join(temp.folder, 'notes.txt');
    writeFileSync(text, 'not a database at all, just some words that fill a page of text');
    const foreign = path.join(temp.folder, 'places.sqlite');
    const other = new BetterSqlite(foreign);
    other.exec('CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)');
    other.close();
    const sizeBefore = statSync(foreign).size;
    const cases: Array<[string, RegExp]> = [
      [empty, /empty file/],
      [temp.folder, /directory/],
      [text, /not a SQLite database/],
      [foreign, /not a nexus ledger/],
    ];
    for (const [file, reason] of cases) {
      for (const words of [['doctor'], ['search', 'foo']]) {
        const run = await runCli([...words, '--db', file, '--json']);
        expect(run.code, `${words.join(' ')} --db ${file}`).toBe(1);
        const error = (run.json() as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('DATABASE_NOT_FOUND');
        expect(error.message).toMatch(reason);
      }
    }
    expect(statSync(empty).size).toBe(0);
    expect(statSync(foreign).size).toBe(sizeBefore);
    const check = new BetterSqlite(foreign, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 'moz_places' }]);
    check.close();
  });

  it('a command that writes still creates the ledger', async () => {
    const fresh = path.join(temp.folder, 'fresh.db');
    expect((await runCli(['session', 'create', '--db', fresh])).code).toBe(0);
    expect(existsSync(fresh)).toBe(true);
    expect((await runCli(['doctor', '--db', fresh])).code).toBe(0);
  });

  it('the library opens a ledger read-only for reads, and refuses writes to it', async () => {
    const writer = openAgentsLedger(temp.dbPath);
    const session = await writer.createSession();
    await writer.appendTurn(session.id, { role: 'user', content: 'pgbouncer 1.22.1 runs on db-2.' });
    writer.close();
    const reader = openAgentsLedger(temp.dbPath, { readonly: true });
    try {
      expect((await reader.search('pgbouncer')).hits).toHaveLength(1);
      await expect(reader.appendTurn(session.id, { role: 'user', content: 'more' })).rejects.toMatchObject({
        code: 'STORAGE_ERROR',
      });
    } finally {
      reader.close();
    }
    // The store opens on first use: that is where a missing ledger is reported, and nothing is created.
    const missing = openAgentsLedger(path.join(temp.folder, 'none.db'), { mustExist: true });
    await expect(missing.listSessions()).rejects.toThrow(/No ledger database at/);
    await missing.close();
    expect(existsSync(path.join(temp.folder, 'none.db'))).toBe(false);
  });
});

describe('CLI conventions', () => {
  it('global options work before the command words as well as after', async () => {
    await runCli(['session', 'create', '--db', temp.dbPath]);
    const before = await runCli(['--db', temp.dbPath, '--json', 'session', 'list']);
    expect(before.code).toBe(0);
    expect(before.json()).toHaveLength(1);
    const mixed = await runCli(['--json', 'search', 'anything', '--db', temp.dbPath]);
    expect(mixed.code).toBe(0);
    expect(mixed.json()).toMatchObject({ hits: [] });
    expect((await runCli(['--db', temp.dbPath, 'frobnicate'])).code).toBe(2);
  });

  it('hints are commands that work when pasted: they carry the --db given', async () => {
    await runCli(['session', 'create', '--db', temp.dbPath]);
    const missing = await runCli(['context', 't_missing', '--db', temp.dbPath]);
    expect(missing.stderr).toContain(`\`nexus history <headTurnId> --db ${temp.dbPath}\``);
    const other = path.join(temp.folder, 'empty.db');
    await runCli(['events', 'append', '--db', other, '--channel', 'c', '--external-id', '1', '--text', 'x']);
    const empty = await runCli(['session', 'list', '--db', other]);
    expect(empty.stdout).toContain(`\`nexus session create --db ${other}\``);
  });

  it('setting errors name the flags a person types, not the library fields', async () => {
    const run = await runCli(['session', 'create', '--db', temp.dbPath, '--context-window', '1000', '--reserve', '2000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--reserve (2000) must be smaller than --context-window (1000)');
    expect(run.stderr).not.toContain('reserveTokens');
  });
});

describe('the events chain tail is anchored by a checkpoint', () => {
  async function channelOf(count: number) {
    const lines = Array.from({ length: count }, (_, index) =>
      JSON.stringify({ externalId: `m${index + 1}`, author: 'dana', payload: { text: `message ${index + 1}` } }),
    );
    const file = path.join(temp.folder, 'events.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect((await runCli(['events', 'ingest', file, '--channel', 'discord:#ops', '--db', temp.dbPath])).code).toBe(0);
  }

  it('verify --checkpoint finds the newest events removed; verify alone cannot, and says what it proves', async () => {
    await channelOf(30);
    await runCli(['events', 'append', '--db', temp.dbPath, '--channel', 'slack:#eng', '--external-id', 'x1', '--text', 'other']);
    const taken = await runCli(['events', 'checkpoint', '--db', temp.dbPath]);
    expect(taken.code).toBe(0);
    const checkpoint = JSON.parse(taken.stdout) as { channels: Array<{ channel: string; seq: number }> };
    expect(checkpoint.channels.map(({ channel, seq }) => [channel, seq])).toEqual([
      ['discord:#ops', 30],
      ['slack:#eng', 1],
    ]);
    const file = path.join(temp.folder, 'checkpoint.json');
    writeFileSync(file, taken.stdout);
    expect((await runCli(['events', 'verify', '--db', temp.dbPath, '--checkpoint', file])).code).toBe(0);

    // Someone with write access to the file drops the guard and removes the last ten events.
    const database = openRawSqlite(temp.dbPath);
    database.exec('DROP TRIGGER IF EXISTS events_no_delete');
    const triggers = database
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'")
      .all() as Array<{ name: string }>;
    for (const { name } of triggers) if (/delete/i.test(name)) database.exec(`DROP TRIGGER "${name}"`);
    database.prepare("DELETE FROM events WHERE channel = 'discord:#ops' AND seq > 20").run();
    database.close();

    const alone = await runCli(['events', 'verify', '--db', temp.dbPath]);
    expect(alone.code).toBe(0); // what remains is still a valid chain: that is why the checkpoint exists
    const anchored = await runCli(['events', 'verify', '--db', temp.dbPath, '--checkpoint', file]);
    expect(anchored.code).toBe(1);
    expect(anchored.stdout).toContain('CHECKPOINT SHORTER: discord:#ops ends at seq 20, but the checkpoint recorded seq 30');
    expect(anchored.stdout).not.toContain('slack:#eng');
  });

  it('a checkpoint of an unknown channel or of a ledger with no events is refused, naming the known channels', async () => {
    await runCli(['session', 'create', '--db', temp.dbPath]);
    const empty = await runCli(['events', 'checkpoint', '--db', temp.dbPath]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('no events yet');
    await channelOf(2);
    const unknown = await runCli(['events', 'checkpoint', '--channel', 'discord:#opz', '--db', temp.dbPath]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('known channels: discord:#ops');
  });

  it('a damaged checkpoint file is a clear error', async () => {
    await channelOf(2);
    const file = path.join(temp.folder, 'bad.json');
    writeFileSync(file, '{"channels": 3}');
    const run = await runCli(['events', 'verify', '--db', temp.dbPath, '--checkpoint', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file} is not a checkpoint`);
  });
});

describe('a re-delivery with a different payload is a conflict', () => {
  it('is reported with its fields and ids, the stored event kept, by append and by ingest', async () => {
    const append = (text: string) =>
      runCli(['events', 'append', '--db', temp.dbPath, '--channel', 'c', '--external-id', 'm1', '--text', text, '--json']);
    expect((await append('first')).code).toBe(0);
    const same = await append('first');
    expect(same.code).toBe(0);
    expect(same.json()).toMatchObject({ duplicate: true, conflict: null });
    const edited = await append('edited');
    expect(edited.code).toBe(1);
    expect(edited.json()).toMatchObject({
      duplicate: true,
      conflict: { fields: ['payload'] },
      event: { payload: { text: 'first' } },
    });

    const file = path.join(temp.folder, 'again.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ externalId: 'm1', payload: { text: 'edited again' } }),
        JSON.stringify({ externalId: 'm2', payload: { text: 'new' } }),
      ].join('\n'),
    );
    const ingest = await runCli(['events', 'ingest', file, '--channel', 'c', '--db', temp.dbPath, '--json']);
    expect(ingest.code).toBe(1);
    expect(ingest.json()).toMatchObject({
      appended: 1,
      duplicates: 0,
      conflicts: [{ line: 1, channel: 'c', externalId: 'm1', fields: ['payload'] }],
    });
    const listed = await runCli(['events', 'list', '--channel', 'c', '--db', temp.dbPath, '--json']);
    expect((listed.json() as Array<{ payload: unknown }>).map((event) => event.payload)).toEqual([
      { text: 'first' },
      { text: 'new' },
    ]);
  });
});

describe('a model API that never answers', () => {
  it('nexus chat --timeout bounds each request, says it is waiting, and a piped chat exits 1 saying how many went unanswered', async () => {
    api = await startLoopbackApi({ respond: () => ({ kind: 'hang' }) });
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, 'chat', '--db', temp.dbPath, '--timeout', '1'],
        {
          cwd: temp.folder,
          env: { ...process.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api?.url, NEXUS_MODEL_TIMEOUT: '' },
          timeout: 60_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      child.stdin?.end('Is anyone there?\n');
    });
    expect(result.stdout).toMatch(
      /^· waiting for the model: \d+ s \(a request times out after 1 s and is retried up to twice; --timeout changes it\)$/m,
    );
    expect(result.stdout).toMatch(/^error: .*(timed out|timeout)/im);
    expect(result.stdout).toMatch(/^1 of 1 messages went unanswered/m);
    expect(result.code).toBe(1);
    // The message is kept for a retry.
    const ledger = openAgentsLedger(temp.dbPath, { readonly: true });
    try {
      const [session] = await ledger.listSessions();
      const head = await ledger.getTurn(session?.headTurnId as string);
      expect(head).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Is anyone there?' }] });
    } finally {
      ledger.close();
    }
  });

  it('a --timeout that is not a number of seconds is a usage error', async () => {
    const run = await runCli(['chat', '--db', temp.dbPath, '--timeout', 'soon']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--timeout takes a number of seconds');
  });
});
