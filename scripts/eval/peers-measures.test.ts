// What `pnpm eval` reports beside ER so it can be read against published numbers (issue 30): the
// tokens each context takes and the budget's share of the conversation, answer containment, a
// full-context reference, and where the rankings put the evidence by session and by turn. Real
// imports into SQLite files; the command line as a process.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CATEGORIES } from './aggregate.ts';
import type { RankedQuestion, ReferenceScore } from './reference-run.ts';
import { type EvaluationResult, runEvaluation } from './run-evaluation.ts';
import { readScores } from './scores-file.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const SESSIONS = path.join(here, 'fixtures', 'weekly-sessions.json');
const NO_SESSIONS = path.join(here, 'fixtures', 'release-planning.json');
const SHARED_LONGMEMEVAL = path.resolve(root, '../shared/data/longmemeval-s/lme-s-001be529.json');
const base = { strategies: ['recent', 'retrieval'], budgets: [150], modes: ['aware'], summarizer: 'extractive' } as const;

describe('the measures peers report, on a conversation of six sessions', () => {
  let result: EvaluationResult;
  const lines: Array<ReferenceScore | RankedQuestion> = [];
  beforeAll(async () => {
    result = await runEvaluation({
      ...base,
      data: [SESSIONS],
      onConversation: (done) => lines.push(...done.reference, ...done.rankings),
    });
  });
  const ranking = (ranker: string, questionId: string) =>
    lines.find((line) => line.kind === 'ranking' && line.ranker === ranker && line.questionId === questionId) as RankedQuestion;
  const reference = (questionId: string) =>
    lines.find((line) => line.kind === 'reference' && line.questionId === questionId) as ReferenceScore;

  it('gives each row the tokens its contexts take and the budget as a share of the conversation', () => {
    const length = result.report.config.data[0]?.tokens ?? 0;
    expect(length).toBeGreaterThan(300);
    for (const row of result.report.rows) {
      expect(row.budget_share).toBeCloseTo(150 / length, 4);
      expect(row.tokens).toBeGreaterThan(0);
      expect(row.tokens).toBeLessThanOrEqual(150);
    }
    for (const score of result.scores) expect(score.tokens).toBeLessThanOrEqual(150);
  });

  it('scores the whole history up to each question as the ceiling: all evidence kept, no later turn read', () => {
    expect(result.report.reference.find((row) => row.category === ALL_CATEGORIES)).toMatchObject({ n: 4, er_frac: 1, er_all: 1 });
    // "31 km" is never said (10 km + 21 km): containment is a string test, not a judge.
    expect(reference('q1')).toMatchObject({ erFrac: 1, containment: 1 });
    expect(reference('q2')).toMatchObject({ erFrac: 1, containment: 0 });
    // q3 is asked before session 5: its context stops there, so it is shorter than the head's.
    expect(reference('q3').tokens).toBeLessThan(reference('q1').tokens);
    expect(reference('q4').containment).toBeNull();
  });

  it('ranks sessions by their best turn and finds the vet question’s session and turn first', () => {
    expect(ranking('retrieval', 'q1')).toMatchObject({ evidenceSessions: 1, sessionFirstHit: 1, turnFirstHit: 1 });
    // Recall's ranking (ledger.recall): S2:1 and the reply S2:2 tie on bm25 (each holds two of the
    // question's words), and recall breaks ties toward the later turn, so the evidence is second.
    expect(ranking('recall', 'q1')).toMatchObject({ evidenceSessions: 1, sessionFirstHit: 1, turnFirstHit: 2 });
    expect(ranking('retrieval', 'q2')).toMatchObject({ evidenceSessions: 2, evidenceTurns: 2 });
    expect(result.report.ranking.find((row) => row.ranker === 'retrieval' && row.category === ALL_CATEGORIES)).toMatchObject({
      session_n: 4,
      turn_n: 4,
      session_any_5: 1,
    });
  });

  it('ranks only the turns up to the question: a later session that matches better is not seen', () => {
    // Session 5 asks about painting the kitchen in the question's own words, after q3 was asked.
    for (const ranker of ['retrieval', 'recall']) {
      expect(ranking(ranker, 'q3')).toMatchObject({ sessionFirstHit: 1, turnFirstHit: 1 });
    }
  });
});

describe('a conversation without sessions', () => {
  it('has turn recall and no session recall', async () => {
    const { report } = await runEvaluation({ ...base, data: [NO_SESSIONS] });
    const all = report.ranking.filter((row) => row.category === ALL_CATEGORIES);
    expect(all.map((row) => row.ranker)).toEqual(['retrieval', 'recall']);
    for (const row of all) {
      expect(row).toMatchObject({ session_n: 0, session_any_5: null, session_all_10: null, turn_n: 3 });
      expect(row.turn_any_20).toBe(1);
    }
  });
});

describe.skipIf(!existsSync(SHARED_LONGMEMEVAL))('a LongMemEval haystack (when ../shared is there)', () => {
  it('has about fifty sessions, and its full context holds all of its evidence', async () => {
    const { report } = await runEvaluation({ ...base, strategies: ['recent'], budgets: [1000], data: [SHARED_LONGMEMEVAL] });
    expect(report.reference[0]).toMatchObject({ er_frac: 1 });
    expect(report.reference[0]?.tokens).toBeGreaterThan(50_000);
    expect(report.ranking[0]?.session_n).toBe(1);
  });
});

describe('the command line', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'nexus-eval-peers-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'eval.ts'), ...args], { cwd: root, encoding: 'utf8' });

  it('prints the new columns, the reference row and the rankings, and writes them to --json and --scores', () => {
    const json = path.join(directory, 'report.json');
    const scores = path.join(directory, 'scores.jsonl');
    const result = run(
      '--data',
      SESSIONS,
      '--strategies',
      'recent,retrieval',
      '--budgets',
      '150',
      '--json',
      json,
      '--scores',
      scores,
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\| +AC \| tokens \| B\/conv \|/);
    expect(result.stdout).toMatch(/\| full +\| +all \| – +\| +4 \|/);
    expect(result.stdout).toContain('## Session recall of the rankings (recall_any / recall_all @k)');
    expect(result.stdout).toContain('## Answer containment by category, aware');
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.reference.map((row: { category: string }) => row.category)).toContain('all');
    expect(report.ranking).toHaveLength(2 * 4);
    const kinds = readFileSync(scores, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).kind ?? 'strategy');
    expect(kinds.filter((kind) => kind === 'reference')).toHaveLength(4);
    expect(kinds.filter((kind) => kind === 'ranking')).toHaveLength(2 * 4);
    expect(readScores(scores)).toHaveLength(2 * 2 * 4);
  });

  it('diffs a --scores file that mixes lines written before issue 30 with the new kinds of line', () => {
    const file = path.join(directory, 'mixed.jsonl');
    const old = (strategy: string, erFrac: number) =>
      JSON.stringify({
        conversationId: 'c1',
        questionId: 'q1',
        category: 'single-hop',
        strategy,
        budget: 1000,
        mode: 'aware',
        turnId: 't_000004',
        ap: null,
        atr: 1,
        erAll: erFrac === 1 ? 1 : 0,
        erFrac,
      });
    const reference = JSON.stringify({ kind: 'reference', conversationId: 'c1', questionId: 'q1', erFrac: 1, tokens: 900 });
    writeFileSync(file, `${[old('hybrid', 1), old('retrieval', 0.5), reference].join('\n')}\n`);
    const result = run('--diff', 'hybrid,retrieval', '--from', file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\| +1000 \| aware +\| +1 \| +0 \| +0 \|/);
  });
});
