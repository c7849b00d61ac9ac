import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateRanking } from './aggregate-peers.ts';
import { rankEvidence, rankSessions, sessionsOf } from './rank-evidence.ts';
import type { RankedQuestion } from './reference-run.ts';

const ids = ['D1:1', 'D1:2', 'D2:1', 'D2:2', 'D3:1', 'D3:2'];
const sessions = sessionsOf(ids);
const tokens = new Map(ids.map((id, index) => [id, 10 * (index + 1)]));

describe('sessions', () => {
  it('are named by the message id before its last colon (LoCoMo D3:12, LongMemEval <id>:4, a renamed copy)', () => {
    expect(sessionsOf(['D3:12', 'answer_530960c1:4', 'a:b:7', 'D3:12#2'])).toEqual(
      new Map([
        ['D3:12', 'D3'],
        ['answer_530960c1:4', 'answer_530960c1'],
        ['a:b:7', 'a:b'],
        ['D3:12#2', 'D3'],
      ]),
    );
  });

  it('do not exist when any id lacks a session (devops, the fixtures)', () => {
    expect(sessionsOf(['D1:1', 'm2'])).toBeNull();
    expect(sessionsOf([':1'])).toBeNull();
    expect(sessionsOf([])).toBeNull();
  });

  it('rank by their best turn', () => {
    expect(rankSessions(['D3:2', 'D1:1', 'D3:1', 'D2:2'], sessions ?? new Map())).toEqual(['D3', 'D1', 'D2']);
  });
});

describe('where a ranking puts the evidence', () => {
  const input = { sessions, messageTokens: tokens };

  it('gives the rank of the first and of the last evidence session and turn', () => {
    const outcome = rankEvidence({ ...input, ranked: ['D3:2', 'D1:2', 'D3:1', 'D2:1'], evidence: ['D2:1', 'D3:1'] });
    expect(outcome).toMatchObject({
      evidenceSessions: 2,
      sessionFirstHit: 1,
      sessionAllHit: 3,
      evidenceTurns: 2,
      turnFirstHit: 3,
      turnAllHit: 4,
    });
  });

  it('leaves a rank out when evidence is not ranked: recall_all fails, recall_any holds on what is', () => {
    const outcome = rankEvidence({ ...input, ranked: ['D1:1', 'D2:2'], evidence: ['D2:1', 'D3:2'] });
    expect(outcome).toMatchObject({ sessionFirstHit: 2, sessionAllHit: null, turnFirstHit: null, turnAllHit: null });
  });

  it('counts the tokens of the first k sessions whole and of the first k turns', () => {
    const outcome = rankEvidence({ ...input, ranked: ['D2:2', 'D1:1'], evidence: ['D1:1'] });
    // D2 = 30 + 40, D1 = 10 + 20; the turns D2:2 (40) and D1:1 (10).
    expect(outcome.sessionTokens).toEqual({ '5': 100, '10': 100 });
    expect(outcome.turnTokens).toEqual({ '5': 50, '10': 50, '20': 50 });
  });

  it('has no session ranks in a conversation without sessions', () => {
    const outcome = rankEvidence({ ranked: ['m1', 'm2'], evidence: ['m2'], sessions: null, messageTokens: new Map() });
    expect(outcome).toMatchObject({ evidenceSessions: 0, sessionFirstHit: null, sessionAllHit: null, turnFirstHit: 2 });
  });

  it('never ranks a session below its best evidence turn, nor the first hit below the last (property)', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(ids, { minLength: 0 }),
        fc.subarray(ids, { minLength: 1, maxLength: 3 }),
        (ranked, evidence) => {
          const outcome = rankEvidence({ ...input, ranked, evidence });
          if (outcome.turnFirstHit !== null) expect(outcome.sessionFirstHit).toBeLessThanOrEqual(outcome.turnFirstHit);
          if (outcome.sessionAllHit !== null) expect(outcome.sessionFirstHit).toBeLessThanOrEqual(outcome.sessionAllHit);
          if (outcome.turnAllHit !== null) expect(outcome.sessionAllHit).not.toBeNull();
        },
      ),
    );
  });
});

function ranked(overrides: Partial<RankedQuestion>): RankedQuestion {
  return {
    kind: 'ranking',
    ranker: 'retrieval',
    conversationId: 'c',
    questionId: 'q',
    category: 'single-hop',
    turnId: 't_000009',
    evidenceSessions: 1,
    sessionFirstHit: 1,
    sessionAllHit: 1,
    evidenceTurns: 1,
    turnFirstHit: 1,
    turnAllHit: 1,
    sessionTokens: { '5': 1000, '10': 2000 },
    turnTokens: { '5': 100, '10': 200, '20': 400 },
    ...overrides,
  };
}

describe('aggregateRanking', () => {
  it('gives recall_any and recall_all at each k per ranker and category, "all" first', () => {
    const rows = aggregateRanking(
      [
        ranked({ questionId: 'q1', sessionFirstHit: 3, sessionAllHit: 7, turnFirstHit: 12, turnAllHit: 30 }),
        ranked({
          questionId: 'q2',
          category: 'multi-hop',
          sessionFirstHit: 6,
          sessionAllHit: null,
          turnFirstHit: null,
          turnAllHit: null,
        }),
        ranked({ questionId: 'q3', evidenceSessions: 0, sessionFirstHit: null, sessionAllHit: null, evidenceTurns: 0 }),
      ],
      ['retrieval', 'recall'],
    );
    expect(rows.map((row) => [row.ranker, row.category])).toEqual([
      ['retrieval', 'all'],
      ['retrieval', 'multi-hop'],
      ['retrieval', 'single-hop'],
      ['recall', 'all'],
      ['recall', 'multi-hop'],
      ['recall', 'single-hop'],
    ]);
    expect(rows[0]).toMatchObject({
      session_n: 2,
      session_any_5: 0.5,
      session_any_10: 1,
      session_all_5: 0,
      session_all_10: 0.5,
      session_tokens_5: 1000,
      turn_n: 2,
      turn_any_5: 0,
      turn_any_20: 0.5,
      turn_all_20: 0,
    });
    expect(rows[3]).toMatchObject({ session_n: 0, turn_n: 0, session_any_5: null, turn_any_5: null });
  });
});
