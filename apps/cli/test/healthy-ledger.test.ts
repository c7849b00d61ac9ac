// Issue 29, items 4, 6 and 8, each as a user met it, with the built `nexus` run as a process: no
// command writes to what is not a healthy ledger, a read changes no byte of any file (the ledger,
// its -wal, -shm and -journal side files), damage is reported rather than crashed on or written
// into, read-only files and folders are read correctly, and a temporary database is refused.
// Before: a read of a truncated ledger left -wal and -shm files beside it, `session create` made
// another program's database a ledger and wrote into a damaged one, doctor crashed with
// SQLITE_CORRUPT, a read-only folder was "not a SQLite database", a read-only file gave a false
// SEARCH_INDEX_MISMATCH, and `--db ''` printed "created session" and lost it.

import { execSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BuiltLedger,
  buildLedger,
  copyTo,
  fingerprint,
  foreignDatabase,
  openToOthers,
  RUNNING_AS_ROOT,
  type Run,
  runNexus,
  withPageOverwritten,
} from './ledger-files.ts';
import { tempFolder } from './run-cli.ts';

let temp: ReturnType<typeof tempFolder>;
let ledger: BuiltLedger;
let transcript: string;

beforeAll(async () => {
  temp = tempFolder();
  openToOthers(temp.folder);
  ledger = await buildLedger(path.join(temp.folder, 'ledger.db'));
  const exported = await runNexus(['export', ledger.sessionId, '--db', ledger.file]);
  expect(exported.code).toBe(0);
  transcript = path.join(temp.folder, 'session.jsonl');
  writeFileSync(transcript, exported.stdout);
});
/** Folders made read-only by a test, made writable again before the temp folder is removed. */
const readOnlyFolders: string[] = [];
afterAll(() => {
  for (const folder of readOnlyFolders) chmodSync(folder, 0o755);
  temp.cleanup();
});

/** Every command that only reads (`readsOnly`), with arguments that find something in the ledger. */
function reads(): string[][] {
  return [
    ['search', 'pgbouncer'],
    ['doctor'],
    ['session', 'list'],
    ['session', 'show', ledger.sessionId],
    ['history', ledger.headTurnId],
    ['context', ledger.headTurnId],
    ['tree', ledger.sessionId],
    ['topics', ledger.sessionId],
    ['events', 'verify'],
    ['events', 'list', '--channel', 'ops'],
    ['events', 'checkpoint'],
    ['export', ledger.sessionId],
  ];
}

function writes(): string[][] {
  return [
    ['session', 'create', '--label', 'new'],
    ['turn', 'append', ledger.sessionId, '--text', 'one more'],
    ['import', transcript],
    ['events', 'append', '--channel', 'ops', '--external-id', 'm-2', '--text', 'one more'],
  ];
}

/** Runs each command on `file` and checks that the file and its side files are byte for byte the same. */
async function runUnchanged(
  file: string,
  commands: string[][],
  options: { unprivileged?: boolean } = {},
): Promise<Array<{ words: string; run: Run }>> {
  const runs: Array<{ words: string; run: Run }> = [];
  for (const words of commands) {
    const before = fingerprint(file);
    const run = await runNexus([...words, '--db', file, '--json'], options);
    expect(fingerprint(file), `nexus ${words.join(' ')} changed ${file}`).toEqual(before);
    expect(run.stderr, `nexus ${words.join(' ')}`).not.toMatch(/internal error/);
    runs.push({ words: words.join(' '), run });
  }
  return runs;
}

function expectRefused(runs: Array<{ words: string; run: Run }>, code: string, message: RegExp): void {
  for (const { words, run } of runs) {
    expect(run.code, `${words}: ${run.stderr}`).toBe(1);
    expect(run.error(), words).toMatchObject({ code, message: expect.stringMatching(message) });
  }
}

describe('a truncated ledger', () => {
  it.each([
    ['inside its header', () => 60],
    ['after its first page', () => 4096],
    ['at half its length', () => Math.floor(statSync(ledger.file).size / 8192) * 4096],
    ['without its last page', () => statSync(ledger.file).size - 4096],
  ])('cut %s: every read and every write is refused as damaged, and no byte changes', async (_where, length) => {
    const file = copyTo(ledger.file, path.join(temp.folder, `cut-${length()}.db`), length());
    const runs = await runUnchanged(file, [...reads(), ...writes()]);
    expectRefused(runs, 'STORAGE_ERROR', /is damaged: .*cut short\. Nothing was written to it\..*\.dump \| sed/);
  });
});

describe('files that are not ledgers', () => {
  it.each(['delete', 'wal'] as const)(
    'another program’s SQLite database (journal %s) is refused by every command, unchanged',
    async (journal) => {
      const file = foreignDatabase(path.join(temp.folder, `places-${journal}.sqlite`), journal);
      const runs = await runUnchanged(file, [...reads(), ...writes()]);
      expectRefused(
        runs,
        'DATABASE_NOT_FOUND',
        /It is a SQLite database, but not a nexus ledger .*moz_places.*nothing was written to it/,
      );
    },
  );

  it('a zero-byte file is refused by every read like a missing one; a write makes it a ledger', async () => {
    const file = path.join(temp.folder, 'touched.db');
    writeFileSync(file, '');
    expectRefused(await runUnchanged(file, reads()), 'DATABASE_NOT_FOUND', /It is an empty file, not a ledger yet/);
    const created = await runNexus(['session', 'create', '--db', file]);
    expect(created.code, created.stderr).toBe(0);
    expect((await runNexus(['doctor', '--db', file])).code).toBe(0);
  });

  it.each([
    ['--db', ['--db', ''], {}],
    ['NEXUS_DB', [], { NEXUS_DB: '' }],
    ['--db :memory:', ['--db', ':memory:'], {}],
  ] as const)('a temporary database (%s) is a usage error that says nothing would persist', async (_how, flags, env) => {
    for (const words of [
      ['session', 'create'],
      ['search', 'pgbouncer'],
    ]) {
      const run = await runNexus([...words, ...flags], { env: { ...env } });
      expect(run.code, `${words.join(' ')}: ${run.stdout}`).toBe(2);
      expect(run.stderr).toMatch(/nothing would persist/);
      expect(run.stdout).not.toMatch(/created session/);
    }
  });
});

describe('a ledger with a page overwritten', () => {
  it('doctor reports the damage and how to recover, and runs every check without crashing; nothing is written', async () => {
    const file = withPageOverwritten(ledger.file, path.join(temp.folder, 'overwritten.db'));
    const [doctor] = await runUnchanged(file, [['doctor']]);
    expect(doctor?.run.code).toBe(1);
    const report = JSON.parse(doctor?.run.stdout ?? '') as { ok: boolean; problems: Array<{ code: string; message: string }> };
    expect(report.ok).toBe(false);
    const codes = report.problems.map((problem) => problem.code);
    expect(codes[0]).toBe('SQLITE_INTEGRITY');
    expect(report.problems[0]?.message).toMatch(
      /\.dump \| sed .* \| sqlite3 recovered\.db.*nexus events verify --checkpoint.*nexus copy --from/,
    );
    // The turn checks stop on the damaged page: a finding of their own; the event checks still run and pass.
    expect(codes).toContain('STORAGE_CORRUPT');
    expect(codes).not.toContain('EVENT_CHAIN_BROKEN');
  });

  it('every write is refused before a byte is written; every read answers or says the file is damaged', async () => {
    const file = withPageOverwritten(ledger.file, path.join(temp.folder, 'overwritten-2.db'));
    expectRefused(await runUnchanged(file, writes()), 'STORAGE_ERROR', /is damaged: .*Nothing was written to it/);
    const answered: string[] = [];
    // doctor's report of this file is the test above.
    for (const { words, run } of await runUnchanged(
      file,
      reads().filter((words) => words[0] !== 'doctor'),
    )) {
      if (run.code === 0) answered.push(words);
      else
        expect(run.error(), words).toMatchObject({
          code: 'STORAGE_ERROR',
          message: expect.stringMatching(/SQLITE_CORRUPT|malformed/),
        });
    }
    // What does not touch the damaged page still reads.
    expect(answered).toEqual(expect.arrayContaining(['session list', 'events verify', 'events list --channel ops']));
  });
});

describe('the recovery doctor advises', () => {
  const sqlite3 = spawnSync('sqlite3', ['-version']).status === 0;

  it.skipIf(!sqlite3)(
    'recovers what still reads from a damaged ledger into one nexus opens, where doctor lists what is lost (needs the sqlite3 shell)',
    async () => {
      const file = withPageOverwritten(ledger.file, path.join(temp.folder, 'to-recover.db'));
      const doctor = await runNexus(['doctor', '--db', file]);
      const recipe = /`(sqlite3 [^`]+\| sqlite3 recovered\.db)`/.exec(doctor.stdout)?.[1];
      expect(recipe, doctor.stdout).toBeDefined();
      execSync(recipe as string, { cwd: temp.folder, shell: '/bin/sh' });
      const recovered = path.join(temp.folder, 'recovered.db');
      const sessions = await runNexus(['session', 'list', '--db', recovered, '--json']);
      expect(sessions.code, sessions.stderr).toBe(0);
      expect(JSON.parse(sessions.stdout)).toEqual([expect.objectContaining({ id: ledger.sessionId })]);
      // The turns were on the overwritten page: doctor on the copy says the head names no stored turn.
      const report = await runNexus(['doctor', '--db', recovered]);
      expect(report.code).toBe(1);
      expect(report.stdout).toMatch(/HEAD_UNRESOLVED/);
      expect((await runNexus(['events', 'verify', '--db', recovered])).code).toBe(0);
    },
  );
});

describe('read-only files and folders', () => {
  // Only root writes a file whatever its mode: the reads run as an unprivileged user (setpriv) too.
  const users = RUNNING_AS_ROOT ? [false, true] : [true];

  function readOnlyCopy(kind: 'read-only-folder' | 'read-only-file', use: string): string {
    const folder = path.join(temp.folder, `${kind}-${use}`);
    mkdirSync(folder);
    readOnlyFolders.push(folder);
    const file = copyTo(ledger.file, path.join(folder, 'ledger.db'));
    chmodSync(file, 0o444);
    chmodSync(folder, kind === 'read-only-folder' ? 0o555 : 0o777);
    return file;
  }

  it.each(['read-only-folder', 'read-only-file'] as const)(
    'a ledger in a %s: every read answers as on a writable one, and no byte changes',
    async (kind) => {
      const file = readOnlyCopy(kind, 'reads');
      for (const unprivileged of users) {
        const runs = await runUnchanged(file, reads(), { unprivileged });
        for (const { words, run } of runs) expect(run.code, `${words} (unprivileged: ${unprivileged}): ${run.stderr}`).toBe(0);
        const [search, doctor] = runs.slice(0, 2).map(({ run }) => JSON.parse(run.stdout) as Record<string, unknown>);
        expect(search?.hits).toEqual(
          expect.arrayContaining([expect.objectContaining({ snippet: expect.stringContaining('pgbouncer') })]),
        );
        expect(doctor).toEqual({ ok: true, problems: [] });
      }
    },
  );

  it.each(['read-only-folder', 'read-only-file'] as const)(
    'a ledger in a %s: a write by a user who may not write it is refused, unchanged',
    async (kind) => {
      const file = readOnlyCopy(kind, 'writes');
      expectRefused(
        await runUnchanged(file, writes(), { unprivileged: true }),
        'STORAGE_ERROR',
        /this process may not write .*nothing was written/,
      );
    },
  );
});
