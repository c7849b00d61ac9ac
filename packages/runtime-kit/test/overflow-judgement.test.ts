// Weighing a "prompt is too long" against the prompts the model answered (overflow-judgement.ts) and
// the evidence it is weighed against (prompt-evidence.ts): pure, no ledger.

import type { SessionCalibration } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import { judgeOverflow, PromptEvidence, refutesCalibration } from '../src/index.ts';

const WINDOW = 200_000;

function evidenceOf(accepted: Array<{ estimatedTokens: number; providerTokens?: number }>) {
  const evidence = new PromptEvidence();
  for (const prompt of accepted) evidence.accepted({ sessionId: 's', ...prompt });
  return evidence.of('s');
}

function report(promptTokens: number, estimatedTokens: number) {
  return { promptTokens, limitTokens: WINDOW, estimatedTokens, userWindowTokens: WINDOW };
}

describe('judgeOverflow', () => {
  it('believes any report when nothing was accepted yet: there is nothing to weigh it against', () => {
    expect(judgeOverflow(evidenceOf([]), report(1e9, 700))).toEqual({ kind: 'believe', acceptedTokens: 0 });
  });

  it('believes a report that leaves room for every prompt the model answered', () => {
    // 150 provider tokens per estimated one; the model answered 1,300 (195,000 of its tokens).
    const evidence = evidenceOf([{ estimatedTokens: 1_300 }]);
    expect(judgeOverflow(evidence, report(201_000, 1_340))).toEqual({ kind: 'believe', acceptedTokens: 1_300 });
  });

  it('sets aside a report whose window is under half a prompt the model answered', () => {
    const evidence = evidenceOf([{ estimatedTokens: 667 }]);
    expect(judgeOverflow(evidence, report(1.5e6, 751))).toEqual({
      kind: 'doubt',
      doubt: { promptTokens: 1.5e6, limitTokens: WINDOW, impliedWindowTokens: 100, acceptedTokens: 667 },
    });
  });

  it('sets aside a smaller contradiction only when the provider’s own counts show a ratio under half the report’s', () => {
    // 400,000 for 2,000 estimated: a window of 1,000, against 1,900 answered.
    const counted = evidenceOf([{ estimatedTokens: 1_900, providerTokens: 2_100 }]);
    expect(judgeOverflow(counted, report(4e5, 2_000)).kind).toBe('doubt');
    // Without counts it may be the estimate's noise: believed, the window held at what was answered.
    const uncounted = evidenceOf([{ estimatedTokens: 1_900 }]);
    expect(judgeOverflow(uncounted, report(4e5, 2_000))).toEqual({ kind: 'believe', acceptedTokens: 1_900 });
  });

  it('believes a report repeated with nothing accepted in between, and a new acceptance ends the doubt', () => {
    const evidence = new PromptEvidence();
    evidence.accepted({ sessionId: 's', estimatedTokens: 667 });
    evidence.of('s').doubting = true;
    expect(judgeOverflow(evidence.of('s'), report(1.5e6, 751))).toEqual({ kind: 'believe', acceptedTokens: 667 });
    evidence.accepted({ sessionId: 's', estimatedTokens: 700 });
    expect(judgeOverflow(evidence.of('s'), report(1.5e6, 751)).kind).toBe('doubt');
  });
});

describe('refutesCalibration', () => {
  const calibration: SessionCalibration = {
    tokensPerEstimatedToken: 300,
    providerWindowTokens: WINDOW,
    originalSettings: { contextWindow: WINDOW, reserveTokens: 20_000, keepRecentTokens: 30_000 },
    promptTokens: 1.5e6,
    estimatedTokens: 5_000,
    calibratedAt: 0,
  };

  it('is refuted by an answered prompt counted at under half its ratio, or above its window', () => {
    expect(refutesCalibration(calibration, { providerTokens: 1_100, estimatedTokens: 1_000 })).toBe(true);
    expect(refutesCalibration(calibration, { providerTokens: 200_000, estimatedTokens: 1_000 })).toBe(false);
    expect(
      refutesCalibration({ ...calibration, tokensPerEstimatedToken: 1.1 }, { providerTokens: 1_100, estimatedTokens: 1_000 }),
    ).toBe(false);
    expect(
      refutesCalibration(
        { ...calibration, tokensPerEstimatedToken: 1.1, providerWindowTokens: 1_000 },
        { providerTokens: 1_100, estimatedTokens: 1_000 },
      ),
    ).toBe(true);
    expect(refutesCalibration(null, { providerTokens: 1_100, estimatedTokens: 1_000 })).toBe(false);
  });
});

describe('PromptEvidence', () => {
  it('keeps the largest prompt answered and the latest ratio counted, per session', () => {
    const evidence = new PromptEvidence();
    evidence.accepted({ sessionId: 'a', estimatedTokens: 900, providerTokens: 990 });
    evidence.accepted({ sessionId: 'a', estimatedTokens: 400, providerTokens: 800 });
    evidence.accepted({ sessionId: 'b', estimatedTokens: 50 });
    expect(evidence.of('a')).toMatchObject({ largestAcceptedTokens: 900, acceptedRatio: 2 });
    expect(evidence.of('b')).toMatchObject({ largestAcceptedTokens: 50, acceptedRatio: null });
  });

  it('forgets the session used longest ago past a thousand', () => {
    const evidence = new PromptEvidence();
    for (let index = 0; index <= 1_000; index += 1) evidence.accepted({ sessionId: `s${index}`, estimatedTokens: 10 + index });
    expect(evidence.of('s1000').largestAcceptedTokens).toBe(1_010);
    expect(evidence.of('s0').largestAcceptedTokens).toBe(0);
  });
});
