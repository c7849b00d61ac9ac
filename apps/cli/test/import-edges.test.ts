// `nexus import FOLDER` (the built CLI, as a process) on a folder with entries that cannot be read:
// a symbolic link loop, a link back up the tree, a dangling link, a FIFO named like a transcript, and
// files and folders under chmod 000 (run as user nobody when the tests run as root, where chmod stops
// no read). Each is listed under "skipped" with its path and why, exit code 1; every readable
// transcript beside them is imported, and nothing ends in "internal error".

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'nexus-import-edges-'));
});
afterEach(() => {
  execFileSync('chmod', ['-R', 'u+rwx', folder]);
  rmSync(folder, { recursive: true, force: true });
});

/** A small Messages-JSON conversation; the question tells the sessions apart. */
function conversation(file: string, question: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const messages = [
    { role: 'user', content: question },
    { role: 'assistant', content: `An answer to: ${question}` },
  ];
  writeFileSync(file, JSON.stringify({ messages }));
}

const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const HAS_SETPRIV = spawnSync('setpriv', ['--version']).status === 0;

/** The built CLI; as another user when asked (setpriv, which root may use to become anyone). */
function nexus(args: string[], options: { asNobody?: boolean } = {}) {
  const command = options.asNobody
    ? ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, BUILT_CLI, ...args]]
    : [process.execPath, [BUILT_CLI, ...args]];
  const run = spawnSync(command[0] as string, command[1] as string[], { encoding: 'utf8', timeout: 50_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, signal: run.signal };
}

describe('nexus import of a folder with entries that cannot be read', () => {
  it('lists each loop, dangling link and FIFO under "skipped" with why, imports the rest and exits 1', () => {
    const root = path.join(folder, 'transcripts');
    conversation(path.join(root, 'a.json'), 'first question');
    conversation(path.join(root, 'deep', 'b.json'), 'second question');
    symlinkSync('loop.jsonl', path.join(root, 'loop.jsonl'));
    symlinkSync('..', path.join(root, 'deep', 'up'));
    symlinkSync('gone.jsonl', path.join(root, 'dangling.jsonl'));
    // Opening a FIFO waits for a writer: read, it would hang the import (the timeout above ends it).
    execFileSync('mkfifo', [path.join(root, 'stuck.jsonl')]);
    const database = path.join(folder, 'ledger.db');

    const run = nexus(['import', root, '--db', database]);

    expect(run.signal).toBeNull();
    expect(run.stderr).not.toContain('internal error');
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe('imported 2 files, 4 lines: 4 new turns, 0 compactions, 0 forks');
    expect(lines.slice(-5)).toEqual([
      'skipped (4):',
      `  ${root}/dangling.jsonl: is a dangling symbolic link (ENOENT: nothing at ${root}/gone.jsonl)`,
      `  ${root}/deep/up: is a symbolic link loop (leads back to ${root}); not followed`,
      `  ${root}/loop.jsonl: is a symbolic link loop (ELOOP)`,
      `  ${root}/stuck.jsonl: is a FIFO (named pipe), not a file; not read`,
    ]);
    // Nothing readable was lost: both conversations are sessions of the ledger.
    const sessions = JSON.parse(nexus(['session', 'list', '--db', database, '--json']).stdout) as unknown[];
    expect(sessions).toHaveLength(2);
  });

  it('opens the ledger after a FIFO was the last entry looked at (nodejs/node#51142)', () => {
    // A plain statSync of a FIFO makes Node 20's loader stop following pnpm's links: the ledger's
    // SQLite driver, loaded next, was then "not found" and the good file beside the FIFO skipped.
    const root = path.join(folder, 'transcripts');
    conversation(path.join(root, 'a.json'), 'first question');
    execFileSync('mkfifo', [path.join(root, 'z.jsonl')]);
    const run = nexus(['import', root, '--db', path.join(folder, 'ledger.db')]);
    expect(run.stdout).not.toContain('Cannot open the ledger');
    expect(run.stdout).toContain('imported 1 file, 2 lines: 2 new turns');
    expect(run.stdout).toContain(`  ${root}/z.jsonl: is a FIFO (named pipe), not a file; not read`);
    expect(run.code).toBe(1);
  });

  it('fails with the reason, not an internal error, for a link loop named on the command line', () => {
    const loop = path.join(folder, 'loop.jsonl');
    symlinkSync('loop.jsonl', loop);
    const run = nexus(['import', loop, '--db', path.join(folder, 'ledger.db')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`nexus: ${loop} is a symbolic link loop (ELOOP)\n`);
  });

  // Root reads through chmod 000, so there the CLI runs as nobody; without setpriv the title says so.
  const chmodCase = IS_ROOT && !HAS_SETPRIV ? it.skip : it;
  chmodCase(
    `lists a file and a folder under chmod 000 as unreadable and imports the rest${
      IS_ROOT ? (HAS_SETPRIV ? ' (run as nobody: root reads through chmod)' : ' (skipped: root, and no setpriv)') : ''
    }`,
    () => {
      const root = path.join(folder, 'transcripts');
      conversation(path.join(root, 'a.json'), 'first question');
      conversation(path.join(root, 'locked.json'), 'locked question');
      conversation(path.join(root, 'closed', 'inside.json'), 'closed question');
      chmodSync(path.join(root, 'locked.json'), 0o000);
      chmodSync(path.join(root, 'closed'), 0o000);
      // nobody must reach the transcripts and write the ledger beside them.
      chmodSync(folder, 0o777);
      const database = path.join(folder, 'ledger.db');

      const run = nexus(['import', root, '--db', database], { asNobody: IS_ROOT });

      expect(run.stderr).not.toContain('internal error');
      expect(run.code).toBe(1);
      expect(run.stdout.trim().split('\n')).toEqual([
        'imported 1 file, 2 lines: 2 new turns, 0 compactions, 0 forks',
        `  ${run.stdout.match(/s_\w+/)?.[0]}  messages    new      ${root}/a.json`,
        'skipped (2):',
        `  ${root}/closed: cannot be read: permission denied (EACCES); nothing below it imported`,
        `  ${root}/locked.json: cannot be read: permission denied (EACCES)`,
      ]);
    },
  );
});
