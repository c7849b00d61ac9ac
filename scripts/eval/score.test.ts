import { describe, expect, it } from 'vitest';
import { aggregateRows, categoriesOf, meanOf, type ScoredQuestion, sumCosts } from './aggregate.ts';
import {
  citedTurnIds,
  contentWords,
  normalizeAnswer,
  normalizeText,
  prepareContext,
  prepareQuestion,
  scoreQuestion,
  turnAtTime,
} from './score.ts';

describe('normalizeText', () => {
  it('lower-cases, removes punctuation and collapses whitespace', () => {
    expect(normalizeText('  Hello,   World!\n\tIt’s  "fine".  ')).toBe('hello world its fine');
  });

  it('removes punctuation inside tokens the same way on both sides', () => {
    expect(normalizeText('MySQL 5.7.44')).toBe('mysql 5744');
    expect(normalizeText('tenant_core on eu-west-3')).toBe('tenantcore on euwest3');
  });

  it('keeps letters and digits of any script', () => {
    expect(normalizeText('Café Crème — 東京 ٣')).toBe('café crème 東京 ٣');
  });
});

describe('contentWords', () => {
  it('drops stopwords, normalised like the text (don’t → dont), and repeats', () => {
    expect(contentWords(normalizeText("Don't open the staging port, then the 6543 port"))).toEqual([
      'open',
      'staging',
      'port',
      '6543',
    ]);
  });

  it('falls back to every word when all are stopwords', () => {
    expect(contentWords('not at all')).toEqual(['not', 'at', 'all']);
  });
});

describe('citedTurnIds', () => {
  it('finds [t_…] citations but not topic ids or bare ids', () => {
    const text =
      'Topics (compaction t_000090, through turn t_000080; …):\n[topic t_000001 · 2026-03-14 09:00 · compacts=3]\n' +
      '[t_000012] Port 6543.\n[t_000020] Backups in eu-west-3.';
    expect([...citedTurnIds(text)].sort()).toEqual(['t_000012', 't_000020']);
  });
});

const evidence = (text: string, turnId: string) => ({ text, turnId });

describe('scoreQuestion', () => {
  const question = prepareQuestion({
    answer: 'Port 6543',
    evidence: [evidence('The staging database listens on port 6543.', 't_2'), evidence('Backups are kept 35 days.', 't_9')],
  });

  it('scores AP, ATR and ER on normalised text', () => {
    const context = prepareContext('the STAGING database listens on port 6543! Backups are kept 35 days');
    expect(scoreQuestion(question, context)).toEqual({ ap: 1, atr: 1, erAll: 1, erFrac: 1, containment: 1 });
  });

  it('counts an evidence message as survived when only its citation is in the context', () => {
    const context = prepareContext('Summary:\n[t_9] Backups: a month.\nWe use port 6543 now.');
    expect(scoreQuestion(question, context)).toEqual({ ap: 1, atr: 1, erAll: 0, erFrac: 0.5, containment: 1 });
  });

  it('needs the whole evidence text, not a part of it', () => {
    const context = prepareContext('The staging database listens on port');
    expect(scoreQuestion(question, context)).toEqual({ ap: 0, atr: 0.5, erAll: 0, erFrac: 0, containment: 0 });
  });

  it('matches whole words for AP and ATR: a short number inside another number or an id is no hit', () => {
    const short = prepareQuestion({ answer: '65', evidence: [evidence('It is 65.', 't_1')] });
    expect(scoreQuestion(short, prepareContext('port 6543, turn [t_000065]'))).toMatchObject({ ap: 0, atr: 0 });
    expect(scoreQuestion(short, prepareContext('The pool size is 65 now.'))).toMatchObject({ ap: 1, atr: 1 });
  });

  it('leaves AP out when the answer is not verbatim in the evidence, but keeps ATR', () => {
    const paraphrased = prepareQuestion({
      answer: '5% of requests over a 5-minute window',
      evidence: [evidence('The alert fires when 5% of requests fail over a 5-minute window.', 't_4')],
    });
    expect(paraphrased.answerInEvidence).toBe(false);
    const score = scoreQuestion(paraphrased, prepareContext('The alert fires when 5% of requests fail over a 5-minute window.'));
    expect(score.ap).toBeNull();
    expect(score.atr).toBe(1);
    expect(score.erAll).toBe(1);
  });

  it('scores a null answer for ER only', () => {
    const unanswerable = prepareQuestion({ answer: null, evidence: [evidence('Nobody said.', 't_3')] });
    expect(scoreQuestion(unanswerable, prepareContext('nobody said'))).toEqual({
      ap: null,
      atr: null,
      erAll: 1,
      erFrac: 1,
      containment: null,
    });
  });

  it('treats an answer of only punctuation as no answer', () => {
    expect(prepareQuestion({ answer: '?!', evidence: [] }).answer).toBeNull();
  });

  it('leaves ER out for a question without evidence', () => {
    const noEvidence = prepareQuestion({ answer: 'blue', evidence: [] });
    expect(scoreQuestion(noEvidence, prepareContext('the car is blue'))).toEqual({
      ap: null,
      atr: 1,
      erAll: null,
      erFrac: null,
      containment: 1,
    });
  });

  it('does not let an empty evidence text survive by text', () => {
    const empty = prepareQuestion({ answer: null, evidence: [evidence('...', 't_5')] });
    expect(scoreQuestion(empty, prepareContext('anything'))).toMatchObject({ erAll: 0 });
    expect(scoreQuestion(empty, prepareContext('[t_5] …'))).toMatchObject({ erAll: 1 });
  });
});

describe('answer containment (SQuAD normalisation)', () => {
  it('normalises as SQuAD does: lower-case, punctuation and articles removed, whitespace collapsed', () => {
    expect(normalizeAnswer('  The  Sony A7-III, an "ILCE" camera! ')).toBe('sony a7iii ilce camera');
    expect(normalizeAnswer('A')).toBe('');
    expect(normalizeAnswer('theatre and another')).toBe('theatre and another');
  });

  it('finds an answer whose articles differ from the context, where AP does not', () => {
    const question = prepareQuestion({
      answer: 'the blue Honda Civic',
      evidence: [evidence('I sold the blue Honda Civic last week.', 't_1')],
    });
    const context = prepareContext('Maria: I finally sold a blue Honda Civic, my old car.');
    expect(scoreQuestion(question, context)).toMatchObject({ ap: 0, containment: 1 });
  });

  it('scores every answered question, also when the answer is not verbatim in its evidence', () => {
    const paraphrased = prepareQuestion({ answer: '35 days', evidence: [evidence('Backups stay five weeks.', 't_1')] });
    expect(scoreQuestion(paraphrased, prepareContext('Kept for 35 days.'))).toMatchObject({ ap: null, containment: 1 });
    expect(scoreQuestion(paraphrased, prepareContext('Kept for 350 days.'))).toMatchObject({ ap: null, containment: 0 });
  });

  it('has no containment for an answer made of articles alone', () => {
    expect(prepareQuestion({ answer: 'The', evidence: [] }).containedAnswer).toBeNull();
  });
});

describe('turnAtTime', () => {
  const turns = [
    { id: 't_1', timestamp: 100 },
    { id: 't_2', timestamp: 200 },
    { id: 't_3', timestamp: 200 },
    { id: 't_4', timestamp: 300 },
  ];

  it('picks the last turn at or before the time, a compaction dated like its message included', () => {
    expect(turnAtTime(turns, 250)).toBe('t_3');
    expect(turnAtTime(turns, 200)).toBe('t_3');
    expect(turnAtTime(turns, 300)).toBe('t_4');
    expect(turnAtTime(turns, 10_000)).toBe('t_4');
  });

  it('returns null when every turn is later', () => {
    expect(turnAtTime(turns, 99)).toBeNull();
    expect(turnAtTime([], 500)).toBeNull();
  });

  it('goes by history order when timestamps are out of order', () => {
    const shuffled = [
      { id: 't_1', timestamp: 500 },
      { id: 't_2', timestamp: 100 },
      { id: 't_3', timestamp: 900 },
    ];
    expect(turnAtTime(shuffled, 600)).toBe('t_2');
  });
});

function scored(overrides: Partial<ScoredQuestion>): ScoredQuestion {
  return {
    conversationId: 'c',
    questionId: 'q',
    category: 'infra',
    strategy: 'flat',
    budget: 500,
    mode: 'agnostic',
    turnId: 't_1',
    ap: 1,
    atr: 1,
    erAll: 1,
    erFrac: 1,
    containment: 1,
    tokens: 400,
    budgetShare: 0.5,
    ...overrides,
  };
}

describe('aggregateRows', () => {
  const order = { strategies: ['recent', 'flat'] as const, budgets: [500], modes: ['agnostic'] as const };

  it('gives means per strategy, budget, mode and category, "all" first, n counting ER-scored questions', () => {
    const rows = aggregateRows(
      [
        scored({ questionId: 'q1', ap: 1, atr: 0.5, erAll: 0, erFrac: 0.5, containment: 0, tokens: 100 }),
        scored({ questionId: 'q2', category: 'people', ap: null, atr: 1, erAll: 1, erFrac: 1, containment: 1, tokens: 400 }),
        scored({
          questionId: 'q3',
          category: 'people',
          ap: null,
          atr: null,
          erAll: null,
          erFrac: null,
          containment: null,
          tokens: 400,
        }),
      ],
      order,
    );
    expect(rows.map((row) => [row.strategy, row.category])).toEqual([
      ['recent', 'all'],
      ['recent', 'infra'],
      ['recent', 'people'],
      ['flat', 'all'],
      ['flat', 'infra'],
      ['flat', 'people'],
    ]);
    expect(rows[0]).toEqual({
      strategy: 'recent',
      budget: 500,
      mode: 'agnostic',
      category: 'all',
      n: 0,
      ap: null,
      atr: null,
      er_all: null,
      er_frac: null,
      containment: null,
      tokens: null,
      budget_share: null,
    });
    expect(rows[3]).toEqual({
      strategy: 'flat',
      budget: 500,
      mode: 'agnostic',
      category: 'all',
      n: 2,
      ap: 1,
      atr: 0.75,
      er_all: 0.5,
      er_frac: 0.75,
      containment: 0.5,
      tokens: 300,
      budget_share: 0.5,
    });
    expect(rows[5]).toMatchObject({ category: 'people', n: 1, ap: null, atr: 1, er_all: 1 });
  });

  it('lists categories alphabetically after "all"', () => {
    expect(categoriesOf([scored({ category: 'zeta' }), scored({ category: 'alpha' })])).toEqual(['all', 'alpha', 'zeta']);
  });

  it('rounds means to 4 decimals', () => {
    expect(meanOf([1, 0, 0])).toBe(0.3333);
    expect(meanOf([null, null])).toBeNull();
  });
});

describe('sumCosts', () => {
  it('sums each strategy over its imports, zero for one that ran none', () => {
    const cost = { calls: 2, inputTokens: 100, outputTokens: 40, compactions: 2, milliseconds: 1500 };
    expect(
      sumCosts(
        [
          { strategy: 'flat', ...cost },
          { strategy: 'flat', ...cost },
        ],
        ['flat', 'union-find'],
      ),
    ).toEqual([
      { strategy: 'flat', calls: 4, input_tokens: 200, output_tokens: 80, compactions: 4, seconds: 3 },
      { strategy: 'union-find', calls: 0, input_tokens: 0, output_tokens: 0, compactions: 0, seconds: 0 },
    ]);
  });
});
