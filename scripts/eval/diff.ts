// The per-question diff between two strategies (`pnpm eval --diff hybrid,retrieval`): for each
// budget and mode, how many questions each one keeps more evidence on, and which. A regression
// shows as a list of question ids instead of a point lost in an average. Pure.

import type { ScoredQuestion } from './aggregate.ts';
import type { StrategyName } from './arguments.ts';
import { formatMarkdownTable } from './markdown-table.ts';

export interface QuestionDiff {
  conversationId: string;
  questionId: string;
  category: string;
  budget: number;
  mode: string;
  /** ER_frac of the first and of the second strategy. */
  left: number;
  right: number;
}

/** What the diff reads of a scored question: lines of --scores files of every version have these. */
export type DiffedScore = Pick<
  ScoredQuestion,
  'conversationId' | 'questionId' | 'category' | 'strategy' | 'budget' | 'mode' | 'erFrac'
>;

export interface StrategyDiff {
  left: StrategyName;
  right: StrategyName;
  /** One line per budget and mode: questions each side wins, and ties. */
  summary: Array<{ budget: number; mode: string; leftBetter: number; rightBetter: number; same: number }>;
  /** Every question whose ER_frac differs, by budget, mode, then conversation and question. */
  questions: QuestionDiff[];
}

export function diffStrategies(scores: readonly DiffedScore[], left: StrategyName, right: StrategyName): StrategyDiff {
  const key = (score: DiffedScore) => JSON.stringify([score.budget, score.mode, score.conversationId, score.questionId]);
  const rights = new Map(scores.filter((score) => score.strategy === right).map((score) => [key(score), score]));
  const summaries = new Map<string, StrategyDiff['summary'][number]>();
  const questions: QuestionDiff[] = [];
  for (const score of scores) {
    if (score.strategy !== left || score.erFrac === null) continue;
    const other = rights.get(key(score));
    if (!other || other.erFrac === null) continue;
    const where = JSON.stringify([score.budget, score.mode]);
    const line = summaries.get(where) ?? { budget: score.budget, mode: score.mode, leftBetter: 0, rightBetter: 0, same: 0 };
    summaries.set(where, line);
    if (score.erFrac === other.erFrac) {
      line.same += 1;
      continue;
    }
    if (score.erFrac > other.erFrac) line.leftBetter += 1;
    else line.rightBetter += 1;
    questions.push({
      conversationId: score.conversationId,
      questionId: score.questionId,
      category: score.category,
      budget: score.budget,
      mode: score.mode,
      left: score.erFrac,
      right: other.erFrac,
    });
  }
  const byPlace = (a: { budget: number; mode: string }, b: { budget: number; mode: string }) =>
    a.budget - b.budget || (a.mode < b.mode ? -1 : a.mode > b.mode ? 1 : 0);
  questions.sort(
    (a, b) =>
      byPlace(a, b) ||
      (a.conversationId < b.conversationId ? -1 : a.conversationId > b.conversationId ? 1 : 0) ||
      a.questionId.localeCompare(b.questionId, 'en', { numeric: true }),
  );
  return { left, right, summary: [...summaries.values()].sort(byPlace), questions };
}

/** The diff as markdown: the summary, then the differing questions (at most `limit` per budget and mode). */
export function renderDiff(diff: StrategyDiff, limit = 40): string {
  const { left, right } = diff;
  const sections = [
    `## Per-question diff, ${left} against ${right} (ER_frac)\n\n${formatMarkdownTable(
      ['budget', 'mode', `${left} better`, `${right} better`, 'same'],
      diff.summary.map((line) => [
        String(line.budget),
        line.mode,
        String(line.leftBetter),
        String(line.rightBetter),
        String(line.same),
      ]),
      new Set([1]),
    )}`,
  ];
  for (const line of diff.summary) {
    const mine = diff.questions.filter((question) => question.budget === line.budget && question.mode === line.mode);
    if (mine.length === 0) continue;
    const shown = mine.slice(0, limit);
    const rows = shown.map((question) => [
      question.conversationId,
      question.questionId,
      question.category,
      percent(question.left),
      percent(question.right),
      question.left > question.right ? left : right,
    ]);
    const more = mine.length > shown.length ? `\n\n…and ${mine.length - shown.length} more (--scores FILE holds them all).` : '';
    sections.push(
      `### B=${line.budget}, ${line.mode}\n\n${formatMarkdownTable(
        ['conversation', 'question', 'category', left, right, 'better'],
        rows,
        new Set([0, 1, 2, 5]),
      )}${more}`,
    );
  }
  return `${sections.join('\n\n')}\n`;
}

function percent(value: number): string {
  return `${(value * 100).toFixed(0)}%`;
}
