import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DiffedScore, diffStrategies, renderDiff } from './diff.ts';

/** A scored question with only what the diff reads, as a line of any --scores file has it. */
function score(strategy: DiffedScore['strategy'], questionId: string, erFrac: number | null, budget = 1000): DiffedScore {
  return { conversationId: 'c1', questionId, category: 'single-hop', strategy, budget, mode: 'aware', erFrac };
}

describe('the per-question diff', () => {
  it('counts the questions each strategy wins and lists the ones that differ, in question order', () => {
    const scores = [
      score('hybrid', 'q10', 1),
      score('retrieval', 'q10', 0.5),
      score('hybrid', 'q2', 0),
      score('retrieval', 'q2', 1),
      score('hybrid', 'q3', 1),
      score('retrieval', 'q3', 1),
      score('hybrid', 'q4', null),
      score('retrieval', 'q4', null),
    ];
    const diff = diffStrategies(scores, 'hybrid', 'retrieval');
    expect(diff.summary).toEqual([{ budget: 1000, mode: 'aware', leftBetter: 1, rightBetter: 1, same: 1 }]);
    expect(diff.questions.map((question) => [question.questionId, question.left, question.right])).toEqual([
      ['q2', 0, 1],
      ['q10', 1, 0.5],
    ]);
    const text = renderDiff(diff);
    expect(text).toContain('| hybrid better | retrieval better | same |');
    expect(text).toMatch(/\| c1 +\| q10 +\| single-hop +\| +100% \| +50% \| hybrid +\|/);
  });

  it('is the mirror image when the strategies swap (property)', () => {
    const value = fc.constantFrom(0, 0.5, 1, null);
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value), { maxLength: 12 }), (pairs) => {
        const scores = pairs.flatMap(([left, right], index) => [
          score('hybrid', `q${index}`, left),
          score('retrieval', `q${index}`, right),
        ]);
        const forward = diffStrategies(scores, 'hybrid', 'retrieval');
        const backward = diffStrategies(scores, 'retrieval', 'hybrid');
        expect(backward.summary).toEqual(
          forward.summary.map((line) => ({ ...line, leftBetter: line.rightBetter, rightBetter: line.leftBetter })),
        );
        expect(backward.questions.map((question) => [question.questionId, question.right, question.left])).toEqual(
          forward.questions.map((question) => [question.questionId, question.left, question.right]),
        );
        const scored = pairs.filter(([left, right]) => left !== null && right !== null).length;
        const total = forward.summary.reduce((sum, line) => sum + line.leftBetter + line.rightBetter + line.same, 0);
        expect(total).toBe(scored);
      }),
    );
  });
});
