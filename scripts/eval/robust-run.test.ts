// The evaluation never loses its work to one bad file: bad files are named before anything runs,
// a conversation that fails while running costs only itself, every finished conversation's rows
// are written as it finishes, and an empty message is skipped as import skips it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataError } from './load-data.ts';
import { runConversation } from './run-conversation.ts';
import { type ConversationDone, runEvaluation } from './run-evaluation.ts';
import { readScores } from './scores-file.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const FIXTURE = path.join(here, 'fixtures', 'release-planning.json');
const base = { strategies: ['recent', 'retrieval'], budgets: [300], modes: ['aware'], summarizer: 'extractive' } as const;

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'nexus-eval-robust-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** The fixture with its id changed and `edit` applied to its messages, written to the temp folder. */
function variant(name: string, edit: (messages: Array<Record<string, unknown>>) => void = () => {}): string {
  const value = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  value.id = name;
  edit(value.messages);
  const file = path.join(directory, `${name}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe('files the importer would refuse', () => {
  it('are all named before anything runs', async () => {
    variant('a-good');
    const noName = variant('b-tool-without-name', (messages) => {
      (messages[3] as Record<string, unknown>).content = [{ type: 'tool_use', id: 'toolu_1' }];
    });
    const early = variant('c-before-1970', (messages) => {
      (messages[5] as Record<string, unknown>).timestamp = '1960-05-01T00:00:00Z';
    });
    const done: ConversationDone[] = [];
    const run = runEvaluation({ ...base, data: [directory], onConversation: (item) => done.push(item) });
    await expect(run).rejects.toThrow(DataError);
    await expect(run).rejects.toThrow(/2 of 3 data files cannot be imported/);
    await expect(run).rejects.toThrow(`${noName}: messages[3].content[0] is a tool_use`);
    await expect(run).rejects.toThrow(`${early}: messages[5].timestamp must be an ISO 8601 time from 1970 on`);
    expect(done).toEqual([]);
  });
});

describe('an empty message', () => {
  it('is skipped as import skips it, listed, and dropped from the evidence that names it', async () => {
    // m2 holds q1's evidence (the staging port); emptied, q1 has no evidence left to score.
    const file = variant('empty-reply', (messages) => {
      (messages[1] as Record<string, unknown>).content = '';
    });
    const { report, scores } = await runEvaluation({ ...base, data: [file] });
    expect(report.config.emptyMessages).toEqual([{ file, ids: ['m2'] }]);
    expect(report.config.failures).toEqual([]);
    const q1 = scores.filter((score) => score.questionId === 'q1');
    expect(q1.length).toBeGreaterThan(0);
    expect(q1.every((score) => score.erAll === null)).toBe(true);
  });
});

describe('a conversation that fails while running', () => {
  it('is reported, and every other conversation is measured and written as it finishes', async () => {
    const first = variant('a-first');
    const broken = variant('b-broken');
    const third = variant('c-third');
    const done: ConversationDone[] = [];
    const { report, scores } = await runEvaluation({
      ...base,
      data: [first, broken, third],
      runConversation: async (loaded, options) => {
        if (loaded.file === broken) throw new Error('the disk is full');
        return runConversation(loaded, options);
      },
      onConversation: (item) => done.push(item),
    });
    expect(report.config.failures).toEqual([{ file: broken, error: 'the disk is full' }]);
    expect(report.config.data.map((item) => item.file)).toEqual([first, third]);
    expect(new Set(scores.map((score) => score.conversationId))).toEqual(new Set(['a-first', 'c-third']));
    expect(done.map((item) => [item.file, item.scores.length > 0])).toEqual([
      [first, true],
      [broken, false],
      [third, true],
    ]);
    // The report handed over after the first conversation already holds its rows.
    expect(done[0]?.report.rows.find((row) => row.category === 'all' && row.strategy === 'recent')?.n).toBe(3);
    expect(done[1]?.report.config.failures).toHaveLength(1);
  });
});

describe('the command line', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'eval.ts'), ...args], { cwd: root, encoding: 'utf8' });

  it('writes every score as JSON Lines, prints a per-question diff, and diffs a saved run again', () => {
    const scoresPath = path.join(directory, 'scores.jsonl');
    const json = path.join(directory, 'report.json');
    const args = ['--data', FIXTURE, '--strategies', 'recent,retrieval', '--budgets', '150,600', '--mode', 'aware'];
    const result = run(...args, '--scores', scoresPath, '--json', json, '--diff', 'retrieval,recent');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('## ER_frac by category, aware');
    expect(result.stdout).toContain('## Per-question diff, retrieval against recent (ER_frac)');
    const saved = readScores(scoresPath);
    expect(saved).toHaveLength(4 * 2 * 2);
    expect(JSON.parse(readFileSync(json, 'utf8')).config.failures).toEqual([]);
    const again = run('--diff', 'retrieval,recent', '--from', scoresPath);
    expect(again.status, again.stderr).toBe(0);
    const printed = result.stdout.slice(result.stdout.indexOf('## Per-question diff'));
    expect(again.stdout).toBe(printed);
  });

  it('refuses --from without --diff, and --diff of a strategy not run', () => {
    expect(run('--from', 'x.jsonl').stderr).toContain('--from reads a --scores file for --diff');
    const result = run('--data', FIXTURE, '--strategies', 'recent', '--diff', 'recent,hybrid');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('both strategies must be among --strategies');
  });
});
