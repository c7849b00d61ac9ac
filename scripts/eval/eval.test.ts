import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConversation } from '../../packages/agents-ledger/src/index.ts';
import { type LoopbackApi, lastUserText, startLoopbackApi } from '../../packages/loopback-api/src/index.ts';
import { collectDataFiles, DataError, loadConversationFile } from './load-data.ts';
import { renderReport, reportJson } from './report.ts';
import { largestMessageTokens, windowSettings } from './run-conversation.ts';
import { type EvaluationReport, type EvaluationResult, runEvaluation } from './run-evaluation.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const FIXTURE = path.join(here, 'fixtures', 'release-planning.json');
const SHARED_DATA = path.resolve(root, '../shared/data');

const base = { strategies: ['recent', 'flat', 'union-find'], modes: ['aware', 'agnostic'], summarizer: 'extractive' } as const;

/** The report with the wall times zeroed: everything else must repeat byte for byte. */
function withoutSeconds(report: EvaluationReport): string {
  return reportJson({ ...report, cost: report.cost.map((row) => ({ ...row, seconds: 0 })) });
}

describe('the evaluation on a small fixture', () => {
  let first: EvaluationResult;
  let second: EvaluationResult;

  beforeAll(async () => {
    first = await runEvaluation({ ...base, data: [FIXTURE], budgets: [200, 400] });
    second = await runEvaluation({ ...base, data: [FIXTURE], budgets: [200, 400] });
  });

  it('gives a row per strategy, budget, mode and category, "all" included', () => {
    const { rows } = first.report;
    expect(rows).toHaveLength(3 * 2 * 2 * 4);
    expect(new Set(rows.map((row) => row.category))).toEqual(new Set(['all', 'adversarial', 'infra', 'people']));
    for (const row of rows) {
      // The fields of reports before issue 30 first, in their order; the new ones after them.
      expect(Object.keys(row)).toEqual([
        'strategy',
        'budget',
        'mode',
        'category',
        'n',
        'ap',
        'atr',
        'er_all',
        'er_frac',
        'containment',
        'tokens',
        'budget_share',
      ]);
      for (const value of [row.ap, row.atr, row.er_all, row.er_frac, row.containment]) {
        if (value !== null) expect(value).toBeGreaterThanOrEqual(0);
        if (value !== null) expect(value).toBeLessThanOrEqual(1);
      }
    }
    const all = rows.filter((row) => row.category === 'all');
    expect(all.every((row) => row.n === 3)).toBe(true);
    const adversarial = rows.filter((row) => row.category === 'adversarial');
    expect(adversarial.every((row) => row.n === 0 && row.ap === null && row.atr === null && row.er_all === null)).toBe(true);
  });

  it('reports the config and a cost line per strategy', () => {
    const { config, cost } = first.report;
    expect(config).toMatchObject({
      data: [{ file: FIXTURE, conversation: 'release-planning', messages: 12, questions: 4 }],
      strategies: ['recent', 'flat', 'union-find'],
      budgets: [200, 400],
      modes: ['aware', 'agnostic'],
      summarizer: 'extractive',
      windowRaises: [],
      tokenCounter: 'estimate (see docs/tokens.md)',
      questions: { total: 4, er: 3, ap: 3, atr: 3, containment: 3 },
    });
    expect(cost.map((row) => row.strategy)).toEqual(['recent', 'flat', 'union-find']);
    expect(cost[0]).toMatchObject({ calls: 0, input_tokens: 0, output_tokens: 0, compactions: 0 });
    for (const row of cost.slice(1)) {
      expect(row.compactions).toBeGreaterThan(0);
      expect(row.calls).toBeGreaterThanOrEqual(row.compactions);
      expect(row.input_tokens).toBeGreaterThan(0);
    }
  });

  it('asks a question with askedAt at the last turn before that time', () => {
    const recent = first.scores.filter((score) => score.questionId === 'q4' && score.strategy === 'recent');
    // No compaction in `recent`, so message m8 (09:35, before askedAt 09:37) is turn 8.
    expect(new Set(recent.map((score) => score.turnId))).toEqual(new Set(['t_000008']));
    const head = first.scores.find((score) => score.questionId === 'q1' && score.strategy === 'recent');
    expect(head?.turnId).toBe('t_000012');
  });

  it('repeats itself exactly, but for the seconds', () => {
    expect(withoutSeconds(second.report)).toBe(withoutSeconds(first.report));
    expect(second.scores).toEqual(first.scores);
  });

  it('finds everything with `recent` when the whole conversation fits', async () => {
    const { report } = await runEvaluation({ ...base, strategies: ['recent'], data: [FIXTURE], budgets: [100_000] });
    for (const row of report.rows.filter((row) => row.category !== 'adversarial')) {
      expect(row).toMatchObject({ ap: 1, atr: 1, er_all: 1, er_frac: 1 });
    }
  });

  it('retrieves by the question with `retrieval` (aware) and sends the newest turns without it (agnostic)', async () => {
    const { scores } = await runEvaluation({
      ...base,
      strategies: ['recent', 'retrieval'],
      data: [FIXTURE],
      budgets: [150],
    });
    const pick = (strategy: string, mode: string, questionId: string) =>
      scores.find((score) => score.strategy === strategy && score.mode === mode && score.questionId === questionId);
    for (const questionId of ['q1', 'q2', 'q4']) {
      expect({ ...pick('retrieval', 'agnostic', questionId), strategy: 'recent' }).toEqual(
        pick('recent', 'agnostic', questionId),
      );
    }
    // The staging port (m2, early in the conversation) is out of the newest 150 tokens but is what the question names.
    expect(pick('recent', 'aware', 'q1')?.erAll).toBe(0);
    expect(pick('retrieval', 'aware', 'q1')?.erAll).toBe(1);
  });

  it('prints the "all" table, the cost and the per-category tables', () => {
    const text = renderReport(first.report);
    expect(text).toContain('| strategy   | budget | mode     |   n |');
    expect(text).toContain('## Cost');
    expect(text).toContain('## ER_all by category, aware');
    expect(text).toMatch(/\| infra +\| +2 \| recent/);
    expect(text).not.toMatch(/\| adversarial/);
  });
});

describe('windows', () => {
  it('follow the budget: a tenth reserved, a quarter kept', () => {
    expect(windowSettings(2000, 100)).toEqual({ contextWindow: 2000, reserveTokens: 200, keepRecentTokens: 500 });
  });

  it('grow to the largest message, and always leave keep below window - reserve', () => {
    expect(windowSettings(500, 3762)).toEqual({ contextWindow: 3762, reserveTokens: 376, keepRecentTokens: 941 });
    for (const budget of [1, 2, 3, 5, 7]) {
      const settings = windowSettings(budget, 0);
      expect(settings.keepRecentTokens).toBeLessThan(settings.contextWindow - settings.reserveTokens);
    }
  });

  it('are raised, and reported, when a message is larger than the budget', async () => {
    const conversation = parseConversation(readFileSync(FIXTURE, 'utf8'));
    const largest = largestMessageTokens(conversation);
    const { report } = await runEvaluation({
      ...base,
      strategies: ['flat'],
      modes: ['agnostic'],
      data: [FIXTURE],
      budgets: [20],
    });
    expect(report.config.windowRaises).toEqual([
      { file: FIXTURE, conversation: 'release-planning', budget: 20, largestMessageTokens: largest, contextWindow: largest },
    ]);
    expect(report.rows.find((row) => row.category === 'all')?.n).toBe(3);
  });
});

describe('data files', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'nexus-eval-test-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const write = (name: string, value: unknown) => {
    const file = path.join(directory, name);
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };

  it('refuses a file that is not nexus-eval/v1, naming it', () => {
    const file = write('other-format.json', { format: 'chat-log/v2', messages: [] });
    expect(() => loadConversationFile(file)).toThrow(DataError);
    expect(() => loadConversationFile(file)).toThrow(`${file}: "format" must be "nexus-eval/v1"`);
  });

  it('refuses evidence that names no message', () => {
    const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    fixture.questions[0].evidence = ['m99'];
    const file = write('bad-evidence.json', fixture);
    expect(() => loadConversationFile(file)).toThrow(`${file}: questions[0].evidence names "m99"`);
  });

  it('renames the later copies of a repeated message id, and refuses evidence on one', () => {
    const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    fixture.messages.push({ ...fixture.messages[2] }, { ...fixture.messages[2] });
    const loaded = loadConversationFile(write('repeated.json', fixture));
    expect(loaded.repeatedIds).toEqual(['m3']);
    expect(loaded.conversation.messages.slice(-2).map((message) => message.id)).toEqual(['m3#2', 'm3#3']);
    fixture.questions[0].evidence = ['m3'];
    const ambiguous = write('ambiguous.json', fixture);
    expect(() => loadConversationFile(ambiguous)).toThrow(
      `${ambiguous}: evidence "m3" names a message id that appears more than once`,
    );
  });

  it('collects the .json files of a folder in name order, and refuses a missing path', () => {
    expect(collectDataFiles([path.join(here, 'fixtures')])).toEqual([
      path.join(here, 'fixtures', 'paraphrase-sessions.json'),
      FIXTURE,
      path.join(here, 'fixtures', 'weekly-sessions.json'),
    ]);
    expect(() => collectDataFiles([path.join(directory, 'nowhere')])).toThrow(/no such file or folder/);
  });

  it.skipIf(!existsSync(SHARED_DATA))('accepts every shared data file (when ../shared is there)', () => {
    for (const file of collectDataFiles([SHARED_DATA])) expect(() => loadConversationFile(file)).not.toThrow();
  });
});

describe('the command line', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'eval.ts'), ...args], { cwd: root, encoding: 'utf8' });

  it('prints the usage with --help', () => {
    const result = run('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: pnpm eval --data');
  });

  it('exits 2 on a bad flag, with the reason', () => {
    const result = run('--data', FIXTURE, '--budgets', 'lots');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--budgets takes whole numbers of tokens');
  });

  it('exits 1 on a file that is not nexus-eval/v1, naming it', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'nexus-eval-cli-'));
    try {
      const file = path.join(directory, 'notes.json');
      writeFileSync(file, '{"hello": "world"}');
      const result = run('--data', file);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`${file}: "format" must be "nexus-eval/v1"`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('writes the report and the JSON', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'nexus-eval-cli-'));
    try {
      const json = path.join(directory, 'out.json');
      const result = run('--data', FIXTURE, '--strategies', 'recent', '--budgets', '300', '--mode', 'agnostic', '--json', json);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('## Recall, all questions');
      const report = JSON.parse(readFileSync(json, 'utf8'));
      expect(Object.keys(report)).toEqual(['config', 'rows', 'cost', 'reference', 'ranking', 'embedding']);
      expect(report.rows).toHaveLength(4);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('the evaluation with the Anthropic summarizer (real SDK, loopback server)', () => {
  let api: LoopbackApi;
  const saved = { key: process.env.ANTHROPIC_API_KEY, url: process.env.ANTHROPIC_BASE_URL };

  beforeAll(async () => {
    // A model that keeps the first line of the transcript: short, so every guard passes.
    api = await startLoopbackApi({
      respond: (request) => {
        const transcript = lastUserText(request.body).split('<transcript>\n')[1] ?? '';
        return { kind: 'text', text: `Summary: ${transcript.split('\n')[0]?.slice(0, 120) ?? ''}` };
      },
    });
    process.env.ANTHROPIC_API_KEY = 'test-key';
    process.env.ANTHROPIC_BASE_URL = api.url;
  });

  afterAll(async () => {
    for (const [name, value] of [
      ['ANTHROPIC_API_KEY', saved.key],
      ['ANTHROPIC_BASE_URL', saved.url],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await api.close();
  });

  it('summarizes through the API and counts its calls and tokens as the API reports them', async () => {
    const result = await runEvaluation({
      ...base,
      strategies: ['flat'],
      summarizer: 'anthropic',
      data: [FIXTURE],
      budgets: [200],
    });
    const requests = api.requests.filter((request) => request.route === 'messages');
    expect(requests.length).toBeGreaterThan(0);
    const flat = result.report.cost.find((row) => row.strategy === 'flat');
    expect(flat?.calls).toBe(requests.length);
    expect(flat?.input_tokens).toBe(requests.reduce((total, request) => total + request.inputTokens, 0));
    expect(result.report.config.summarizer).toBe('anthropic');
  });
});
