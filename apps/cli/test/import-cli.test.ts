// `nexus import` from the command line: folders of transcripts, text and --json reports, exit code 1
// for skipped lines, a progress bar only on a terminal, idempotent re-runs, and through the
// binary, `pnpm nexus` resolving paths and ./nexus.db against the directory it was called from.

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/main.ts';
import { runCli, tempFolder } from './run-cli.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURES = path.join(ROOT, 'packages/transcripts/test/fixtures');
const BIN = path.join(ROOT, 'apps/cli/dist/bin/nexus.js');

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(() => temp.cleanup());

interface ImportJson {
  files: number;
  turns: number;
  compactions: number;
  forks: number;
  known: number;
  lines: number;
  knownProblems: number;
  resumed: number;
  unfinished: number;
  sources: Array<{ sessionId: string; format: string; created: boolean; added: number; path: string }>;
  problems: Array<{ path: string; line: number; message: string }>;
}

describe('nexus import', () => {
  it('imports folders of Claude Code, Codex and pi sessions, reports skipped lines with file:line and exits 1', async () => {
    const run = await runCli([
      'import',
      path.join(FIXTURES, 'claude-code'),
      path.join(FIXTURES, 'codex'),
      path.join(FIXTURES, 'pi'),
      '--db',
      temp.dbPath,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^imported 5 files, \d+ lines: 29 new turns, 3 compactions, 4 forks\n/);
    expect(run.stdout).toMatch(/ {2}s_\S+ {2}claude-code +new {6}\S+5e551011-aaaa-4bbb-8ccc-000000000001\.jsonl/);
    expect(run.stdout).toContain('skipped (3):');
    expect(run.stdout).toMatch(/5e551011-aaaa-4bbb-8ccc-000000000001\.jsonl:13: is not valid JSON/);
    expect(run.stderr).toBe('');

    const again = await runCli([
      'import',
      path.join(FIXTURES, 'claude-code'),
      path.join(FIXTURES, 'codex'),
      path.join(FIXTURES, 'pi'),
      '--db',
      temp.dbPath,
      '--json',
    ]);
    const result = again.json() as ImportJson;
    // Each file resumes where the first import stopped: only its first line (the session it names) is read.
    expect(result).toMatchObject({ files: 5, turns: 0, compactions: 0, forks: 0, problems: [] });
    expect(result.resumed).toBeGreaterThan(30);
    expect(result.known).toBe(result.lines);
    expect(result.sources.map((source) => [source.format, source.created, source.added])).toEqual([
      ['claude-code', false, 0],
      ['claude-code', false, 0],
      ['codex', false, 0],
      ['codex', false, 0],
      ['pi', false, 0],
    ]);
    expect(again.code).toBe(0);
    // A scheduled re-run with nothing new: one line, exit 0.
    const quiet = await runCli([
      'import',
      path.join(FIXTURES, 'claude-code'),
      path.join(FIXTURES, 'codex'),
      path.join(FIXTURES, 'pi'),
      '--db',
      temp.dbPath,
    ]);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('nothing new in 5 files\n');
    // What was imported is searchable like any session, across the compactions.
    const search = await runCli(['search', 'TAX_RATE', '--db', temp.dbPath]);
    expect(search.code).toBe(0);
    expect(search.stdout).toContain('TAX_RATE');
  });

  it('leaves a last line still being written for the next run, and says updated only for a source that grew', async () => {
    const file = path.join(temp.folder, 'live.jsonl');
    const lines = readFileSync(path.join(FIXTURES, 'claude-code', '-w-app', '5e551011-aaaa-4bbb-8ccc-000000000001.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    // The fixture's malformed line (a crash cut it off) is left out: this file is well formed.
    const complete = lines.filter((line) => isJson(line));
    const [first, ...rest] = complete;
    // The writer is half-way through the third line: no newline, not yet JSON.
    writeFileSync(file, `${first}\n${rest[0]}\n${(rest[1] as string).slice(0, 40)}`);
    const early = await runCli(['import', file, '--db', temp.dbPath, '--json']);
    expect(early.code).toBe(0);
    expect(early.json()).toMatchObject({ problems: [], unfinished: 1 });
    const turnsEarly = (early.json() as ImportJson & { turns: number }).turns;
    // Said in words too, and again while it stays unfinished (nothing else new).
    const waiting = await runCli(['import', file, '--db', temp.dbPath]);
    expect(waiting.stdout).toBe('nothing new in 1 file; 1 line held back until complete (still being written)\n');

    // The line is finished, and more follow: the next run imports them, and the source is "updated".
    writeFileSync(file, `${complete.join('\n')}\n`);
    const later = await runCli(['import', file, '--db', temp.dbPath]);
    expect(later.code).toBe(0);
    expect(later.stdout).toMatch(/^imported 1 file, \d+ lines: [1-9]\d* new turns?/);
    expect(later.stdout).toMatch(/ updated {2}\S*live\.jsonl/);
    expect(turnsEarly).toBeGreaterThan(0);

    const again = await runCli(['import', file, '--db', temp.dbPath]);
    expect(again.stdout).toBe('nothing new in 1 file\n');
  });

  it('reads - from stdin and points to the format docs for a file it cannot read', async () => {
    const stdin = JSON.stringify([
      { role: 'user', content: 'ping the staging host' },
      { role: 'assistant', content: 'staging answers in 3 ms' },
    ]);
    let stdout = '';
    const code = await main(['import', '-', '--db', temp.dbPath], {
      stdout: (text) => {
        stdout += text;
      },
      stderr: () => {},
      stdin: Readable.from([stdin]),
      stderrIsTerminal: false,
      env: {},
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^imported 1 file, 2 lines: 2 new turns/);
    const bad = await runCli(['import', path.join(FIXTURES, '..', 'helpers.ts'), '--db', temp.dbPath]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^nexus: .*helpers\.ts is neither Claude Code, Codex or pi JSONL nor a JSON conversation.*docs\/import-export\.md/,
    );
  });

  it('draws a progress bar of files, lines and turns on a terminal, and nothing when piped', async () => {
    let stderr = '';
    const code = await main(['import', path.join(FIXTURES, 'messages'), '--db', temp.dbPath], {
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
      },
      stdin: Readable.from(['']),
      stderrIsTerminal: true,
      env: {},
    });
    expect(code).toBe(0);
    expect(stderr).toMatch(/importing .* 2\/2 files \| 8 lines \| 8 turns \| 0 compactions/);
    const piped = await runCli(['import', path.join(FIXTURES, 'messages'), '--db', temp.dbPath]);
    expect(piped.stderr).toBe('');
  });

  it('has --help naming the formats and the docs', async () => {
    const run = await runCli(['import', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: nexus import <file>... [options]');
    expect(run.stdout).toContain('--format');
    expect(run.stdout).toContain('docs/import-export.md');
  });

  it('through the binary as `pnpm nexus` runs it: relative paths and ./nexus.db resolve against INIT_CWD', () => {
    cpSync(path.join(FIXTURES, 'pi'), path.join(temp.folder, 'sessions'), { recursive: true });
    const { NEXUS_DB: _ignored, ...inherited } = process.env;
    const env = { ...inherited, npm_lifecycle_event: 'nexus', INIT_CWD: temp.folder };
    const run = spawnSync(process.execPath, [BIN, 'import', 'sessions', '--json'], { cwd: ROOT, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ turns: 9, sources: [{ format: 'pi', created: true }] });
    expect(existsSync(path.join(temp.folder, 'nexus.db'))).toBe(true);
    expect(existsSync(path.join(ROOT, 'sessions'))).toBe(false);
    const list = execFileSync(process.execPath, [BIN, 'session', 'list'], {
      cwd: temp.folder,
      env: { ...env, npm_lifecycle_event: '' },
      encoding: 'utf8',
    });
    expect(list).toContain('pi /w/web 2026-05-03 08:00');
  });
});

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
