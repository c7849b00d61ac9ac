// `nexus export -o FILE` (the built CLI, as a process): an existing file is refused, byte for byte
// untouched, unless --force; --force replaces it whole (its mode kept, a link to it still a link),
// and an export that fails half way leaves the old file as it was and no temporary file behind.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';

let folder: string;
let database: string;
let sessionId: string;

function nexus(args: string[]) {
  const run = spawnSync(process.execPath, [BUILT_CLI, ...args, '--db', database], { encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'nexus-export-edges-'));
  database = path.join(folder, 'ledger.db');
  sessionId = (JSON.parse(nexus(['session', 'create', '--label', 'export edges', '--json']).stdout) as { id: string }).id;
  nexus(['turn', 'append', sessionId, '--text', 'What is kept when an export fails?']);
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const OLD_TEXT = '{"a good export":"from yesterday"}\n';

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The file, with its hash and the folder's listing before the command, to compare after it. */
function existing(name: string) {
  const file = path.join(folder, name);
  writeFileSync(file, OLD_TEXT);
  return { file, hash: sha256(file), listing: readdirSync(folder).sort() };
}

describe('nexus export -o FILE', () => {
  it('refuses an existing file (exit 2), leaving it byte for byte as it was', () => {
    const { file, hash, listing } = existing('session.jsonl');
    const run = nexus(['export', sessionId, '-o', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `nexus: ${file} already exists; it was left as it is. Add --force to replace it, or name a new file.\n`,
    );
    expect(sha256(file)).toBe(hash);
    expect(readdirSync(folder).sort()).toEqual(listing);
  });

  it('with --force replaces it whole, keeping its mode, and through a link writes where the link points', () => {
    const { file } = existing('session.jsonl');
    chmodSync(file, 0o640);
    const link = path.join(folder, 'latest.jsonl');
    symlinkSync('session.jsonl', link);
    const run = nexus(['export', sessionId, '-o', link, '--force']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^wrote session s_\S+ as pi to .*latest\.jsonl \(\d+ bytes, replacing the file that was there;/);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: 'session', version: 3 });
    expect(lines).toHaveLength(2);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('session.jsonl');
    expect(readdirSync(folder).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('with --force, an export that fails leaves the old file as it was and no temporary file', () => {
    const { file, hash, listing } = existing('session.jsonl');
    const run = nexus(['export', 's_doesnotexist', '-o', file, '--force']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No session with id "s_doesnotexist"');
    expect(sha256(file)).toBe(hash);
    expect(readdirSync(folder).sort()).toEqual(listing);
  });

  it('writes a new file, with no temporary file left beside it', () => {
    const listing = readdirSync(folder).sort();
    const file = path.join(folder, 'new.json');
    const run = nexus(['export', sessionId, '--format', 'nexus', '-o', file]);
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ format: 'nexus-eval/v1' });
    expect(readdirSync(folder).sort()).toEqual([...listing, 'new.json'].sort());
  });

  it('refuses a folder and --force without --output, as usage mistakes', () => {
    expect(nexus(['export', sessionId, '-o', folder])).toMatchObject({
      code: 2,
      stderr: `nexus: --output ${folder} is a folder: name a file in it.\n`,
    });
    expect(nexus(['export', sessionId, '--force'])).toMatchObject({
      code: 2,
      stderr: 'nexus: --force applies with --output FILE only.\n',
    });
  });

  it('--help lists --force', () => {
    const help = nexus(['export', '--help']).stdout;
    expect(help).toMatch(/--force\s+with --output: replace the file if it exists/);
    expect(help).toMatch(/-o, --output FILE\s+write to this file instead of stdout \(refused if it exists\)/);
  });
});
