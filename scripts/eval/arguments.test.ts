import { describe, expect, it } from 'vitest';
import { DEFAULT_BUDGETS, parseEvalArguments, USAGE, UsageError } from './arguments.ts';

describe('parseEvalArguments', () => {
  it('needs only --data and defaults the rest', () => {
    expect(parseEvalArguments(['--data', 'a.json'])).toEqual({
      data: ['a.json'],
      strategies: ['recent', 'retrieval', 'flat', 'union-find', 'hybrid'],
      budgets: [...DEFAULT_BUDGETS],
      modes: ['aware', 'agnostic'],
      summarizer: 'extractive',
      jsonPath: null,
      retrievalShare: null,
      minRelevance: null,
      recall: {},
      forest: {},
      dbServer: null,
      diff: null,
      scoresPath: null,
      fromPath: null,
      embedder: null,
      cachePath: null,
      help: false,
    });
  });

  it('takes a PostgreSQL server as --db-server postgres://… and refuses anything else', () => {
    expect(parseEvalArguments(['--data', 'a.json', '--db-server', 'postgres://u@h:5432/db']).dbServer).toBe(
      'postgres://u@h:5432/db',
    );
    expect(() => parseEvalArguments(['--data', 'a.json', '--db-server', 'ledger.db'])).toThrow(UsageError);
  });

  it('takes recall settings as --recall name=value,…', () => {
    expect(
      parseEvalArguments(['--data', 'a.json', '--recall', 'neighbourShare=0.6, packing=density,feedbackTerms=3']).recall,
    ).toEqual({
      neighbourShare: 0.6,
      packing: 'density',
      feedbackTerms: 3,
    });
    expect(() => parseEvalArguments(['--data', 'a.json', '--recall', 'share=2'])).toThrow(/"share=2" is not a setting/);
    expect(() => parseEvalArguments(['--data', 'a.json', '--recall', 'neighbours=-1'])).toThrow(/not a setting/);
    expect(() => parseEvalArguments(['--data', 'a.json', '--recall', 'packing=random'])).toThrow(/not a setting/);
  });

  it('takes forest settings as --forest name=number,…', () => {
    expect(parseEvalArguments(['--data', 'a.json', '--forest', 'mergeThreshold=0.3, maxClusters=30']).forest).toEqual({
      mergeThreshold: 0.3,
      maxClusters: 30,
    });
    expect(parseEvalArguments(['--data', 'a.json']).forest).toEqual({});
    expect(() => parseEvalArguments(['--data', 'a.json', '--forest', 'threshold=0.3'])).toThrow(
      /"threshold=0.3" is not a setting/,
    );
    expect(() => parseEvalArguments(['--data', 'a.json', '--forest', 'maxClusters=many'])).toThrow(UsageError);
  });

  it('takes --diff A,B, --scores FILE and --from FILE', () => {
    const parsed = parseEvalArguments(['--data', 'a.json', '--diff', 'hybrid,retrieval', '--scores', 's.jsonl']);
    expect(parsed).toMatchObject({ diff: ['hybrid', 'retrieval'], scoresPath: 's.jsonl', fromPath: null });
    expect(parseEvalArguments(['--diff', 'hybrid,retrieval', '--from', 's.jsonl'])).toMatchObject({
      data: [],
      fromPath: 's.jsonl',
    });
    expect(() => parseEvalArguments(['--data', 'a.json', '--diff', 'hybrid'])).toThrow(/two different strategies/);
    expect(() => parseEvalArguments(['--data', 'a.json', '--diff', 'hybrid,hybrid'])).toThrow(/two different strategies/);
    expect(() => parseEvalArguments(['--data', 'a.json', '--diff', 'hybrid,bm25'])).toThrow(/unknown "bm25"/);
    expect(() => parseEvalArguments(['--data', 'a.json', '--diff', 'hybrid,flat', '--from', 's.jsonl'])).toThrow(
      /leave out --data/,
    );
  });

  it('takes several data paths, inline values and every option', () => {
    const parsed = parseEvalArguments([
      '--data',
      'one.json',
      'folder',
      '--strategies=flat,recent,flat',
      '--budgets',
      '2_000,500',
      '--mode',
      'agnostic',
      '--json',
      'out.json',
      '--summarizer',
      'extractive',
      '--retrieval-share',
      '0.75',
      '--min-relevance=0.4',
    ]);
    expect(parsed).toMatchObject({
      retrievalShare: 0.75,
      minRelevance: 0.4,
      data: ['one.json', 'folder'],
      strategies: ['flat', 'recent'],
      budgets: [2000, 500],
      modes: ['agnostic'],
      jsonPath: 'out.json',
    });
  });

  it('accepts --help without --data', () => {
    expect(parseEvalArguments(['--help']).help).toBe(true);
  });

  it.each([
    [[], /--data needs at least one/],
    [['--data'], /--data needs at least one/],
    [['--data', 'a.json', '--budget', '5'], /Unknown option "--budget"/],
    [['--data', 'a.json', '--budgets', '0'], /whole numbers of tokens/],
    [['--data', 'a.json', '--budgets', '1.5'], /whole numbers of tokens/],
    [['--data', 'a.json', '--strategies', 'flat,bm25'], /unknown "bm25"; choose from recent, retrieval, flat, union-find/],
    [['--data', 'a.json', '--mode', ''], /--mode needs at least one of aware, agnostic/],
    [['--data', 'a.json', '--json'], /--json needs a value/],
    [['--data', 'a.json', '--summarizer', 'gpt'], /unknown "gpt"/],
    [['--data', 'a.json', '--min-relevance', '1.5'], /--min-relevance takes a number from 0 to 1/],
    [['stray.json'], /Unexpected argument "stray.json"/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseEvalArguments(argv)).toThrow(UsageError);
    expect(() => parseEvalArguments(argv)).toThrow(message);
  });

  it('refuses the anthropic summarizer without a key, and takes it with one', () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    try {
      delete process.env.ANTHROPIC_API_KEY;
      expect(() => parseEvalArguments(['--data', 'a.json', '--summarizer', 'anthropic'])).toThrow(/needs ANTHROPIC_API_KEY/);
      process.env.ANTHROPIC_API_KEY = 'test-key';
      expect(parseEvalArguments(['--data', 'a.json', '--summarizer', 'anthropic']).summarizer).toBe('anthropic');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('states the method and both summarizers in the usage', () => {
    expect(USAGE).toContain('anthropic (needs ANTHROPIC_API_KEY');
    expect(USAGE).toContain('reserveTokens = round(B/10)');
    expect(USAGE).toContain('a topic id does not count');
  });
});
