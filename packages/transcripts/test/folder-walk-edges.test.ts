// An import folder as people's real trees are: symbolic link loops, dangling links, a FIFO named like
// a transcript, entries that cannot be read. Each is reported with its path and why, and every
// readable transcript beside them is imported; a linked folder is followed, once.

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { openTempLedger, type TempLedger } from './helpers.ts';

let temp: TempLedger;
beforeEach(() => {
  temp = openTempLedger();
});
afterEach(() => {
  // A folder made unreadable must be readable again to be removed.
  execFileSync('chmod', ['-R', 'u+rwx', temp.folder]);
  temp.cleanup();
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

describe('importing a folder with entries that cannot be read', () => {
  it('reports a link loop, a folder loop, a dangling link and a FIFO by path, and imports the rest', async () => {
    const root = path.join(temp.folder, 'transcripts');
    conversation(path.join(root, 'a.json'), 'first question');
    conversation(path.join(root, 'deep', 'b.json'), 'second question');
    symlinkSync('loop.jsonl', path.join(root, 'loop.jsonl'));
    symlinkSync('..', path.join(root, 'deep', 'up'));
    symlinkSync('gone.jsonl', path.join(root, 'dangling.jsonl'));
    execFileSync('mkfifo', [path.join(root, 'stuck.jsonl')]);

    const result = await importTranscripts({ ledger: temp.ledger, paths: [root] });

    expect(result.sources.map((source) => path.relative(root, source.path)).sort()).toEqual(['a.json', 'deep/b.json']);
    expect(result.turns).toBe(4);
    expect(result.problems.map((problem) => [path.relative(root, problem.path), problem.message])).toEqual([
      ['dangling.jsonl', `is a dangling symbolic link (ENOENT: nothing at ${path.join(root, 'gone.jsonl')})`],
      ['deep/up', `is a symbolic link loop (leads back to ${root}); not followed`],
      ['loop.jsonl', 'is a symbolic link loop (ELOOP)'],
      ['stuck.jsonl', 'is a FIFO (named pipe), not a file; not read'],
    ]);
  });

  it('follows a linked folder once, however many links lead to it', async () => {
    const outside = path.join(temp.folder, 'elsewhere');
    conversation(path.join(outside, 'c.json'), 'third question');
    const root = path.join(temp.folder, 'transcripts');
    conversation(path.join(root, 'a.json'), 'first question');
    symlinkSync(outside, path.join(root, 'linked'));
    symlinkSync(outside, path.join(root, 'linked-again'));

    const result = await importTranscripts({ ledger: temp.ledger, paths: [root] });

    expect(result.problems).toEqual([]);
    expect(result.files).toBe(2);
    expect(result.sources.map((source) => path.relative(root, source.path))).toEqual(['a.json', 'linked/c.json']);
  });

  // As root, chmod 000 stops no read: there the FIFO and the dangling link above are the unreadable
  // cases, and apps/cli/test/import-edges.test.ts runs this one through the CLI as user nobody.
  it.skipIf(IS_ROOT)(
    `reports a file and a folder it may not read (chmod 000), and imports the rest${
      IS_ROOT ? ' (skipped as root, where chmod stops no read: import-edges.test.ts runs it as nobody)' : ''
    }`,
    async () => {
      const root = path.join(temp.folder, 'transcripts');
      conversation(path.join(root, 'a.json'), 'first question');
      conversation(path.join(root, 'locked.json'), 'locked question');
      conversation(path.join(root, 'closed', 'inside.json'), 'closed question');
      chmodSync(path.join(root, 'locked.json'), 0o000);
      chmodSync(path.join(root, 'closed'), 0o000);

      const result = await importTranscripts({ ledger: temp.ledger, paths: [root] });

      expect(result.sources.map((source) => path.basename(source.path))).toEqual(['a.json']);
      expect(result.problems.map((problem) => [path.relative(root, problem.path), problem.message])).toEqual([
        ['closed', 'cannot be read: permission denied (EACCES); nothing below it imported'],
        ['locked.json', 'cannot be read: permission denied (EACCES)'],
      ]);
    },
  );

  it('fails the run, with the reason and no internal error, for a link loop named on the command line', async () => {
    const loop = path.join(temp.folder, 'loop.jsonl');
    symlinkSync('loop.jsonl', loop);
    await expect(importTranscripts({ ledger: temp.ledger, paths: [loop] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: `${loop} is a symbolic link loop (ELOOP)`,
    });
  });
});
