// `nexus export`: a pi file that imports back into the same turns, compactions and forks, Anthropic
// Messages JSON of the history or of the context at a turn, nexus-eval/v1, and bad options refused.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './run-cli.ts';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../packages/transcripts/test/fixtures');
const PI_FILE = path.join(FIXTURES, 'pi', '2026-05-03T08-00-00-000Z_7b1f3c2e-0a4d-4e8b-9c1d-2f3a4b5c6d7e.jsonl');

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(() => temp.cleanup());

interface TurnOut {
  turnType: string;
  role?: string;
  summary?: string;
  content?: unknown;
}

async function importedSession(dbPath: string, file: string): Promise<string> {
  const run = await runCli(['import', file, '--db', dbPath, '--json']);
  return (run.json() as { sources: Array<{ sessionId: string }> }).sources[0]?.sessionId as string;
}

async function shapeOf(dbPath: string, sessionId: string) {
  const tree = (await runCli(['tree', sessionId, '--db', dbPath, '--json'])).json() as { forks: unknown[] };
  const show = (await runCli(['session', 'show', sessionId, '--db', dbPath, '--json'])).json() as { headTurnId: string };
  const history = (await runCli(['history', show.headTurnId, '--db', dbPath, '--json'])).json() as TurnOut[];
  return {
    forks: tree.forks.length,
    turns: history.map((turn) => [turn.turnType, turn.role ?? null, turn.summary ?? turn.content]),
  };
}

describe('nexus export', () => {
  it('--format pi writes a file that nexus import reads back into the same session shape', async () => {
    const sessionId = await importedSession(temp.dbPath, PI_FILE);
    const output = path.join(temp.folder, 'out.jsonl');
    const run = await runCli(['export', sessionId, '--format', 'pi', '--output', output, '--db', temp.dbPath]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^wrote session s_\S+ as pi to .*out\.jsonl \(\d+ bytes/);
    const lines = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'session', version: 3 });
    expect(lines.filter((line) => line.type === 'compaction')).toHaveLength(1);

    const second = path.join(temp.folder, 'second.db');
    const copy = await importedSession(second, output);
    expect(await shapeOf(second, copy)).toEqual(await shapeOf(temp.dbPath, sessionId));
  });

  it('--format anthropic prints the history, or with --at the context sent at that turn; nexus prints nexus-eval/v1', async () => {
    const sessionId = await importedSession(temp.dbPath, PI_FILE);
    const full = await runCli(['export', sessionId, '--format', 'anthropic', '--db', temp.dbPath]);
    expect(full.code).toBe(0);
    const body = JSON.parse(full.stdout) as { messages: Array<{ role: string }> };
    expect(body.messages[0]?.role).toBe('user');
    expect(full.stdout).toContain('Clean the web package');
    const show = (await runCli(['session', 'show', sessionId, '--db', temp.dbPath, '--json'])).json() as { headTurnId: string };
    const context = JSON.parse(
      (await runCli(['export', sessionId, '--format', 'anthropic', '--at', show.headTurnId, '--db', temp.dbPath])).stdout,
    );
    expect(context.system).toContain('Clean the web package');
    expect(context.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'now the unused vars' }] });
    const nexus = JSON.parse((await runCli(['export', sessionId, '--format', 'nexus', '--db', temp.dbPath])).stdout);
    expect(nexus).toMatchObject({ format: 'nexus-eval/v1', id: sessionId });
  });

  it('refuses an unknown format, --at without anthropic, and an unknown session', async () => {
    const sessionId = await importedSession(temp.dbPath, PI_FILE);
    const format = await runCli(['export', sessionId, '--format', 'html', '--db', temp.dbPath]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format must be pi, anthropic or nexus');
    expect((await runCli(['export', sessionId, '--at', 't_x', '--db', temp.dbPath])).stderr).toContain(
      '--at applies to --format anthropic only',
    );
    const missing = await runCli(['export', 's_missing', '--db', temp.dbPath]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('s_missing');
    expect((await runCli(['export', '--help'])).stdout).toContain('Usage: nexus export <sessionId>');
  });
});
