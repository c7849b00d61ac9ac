// Turns per-question scores into the report's rows (means per strategy × budget × mode ×
// category, plus category "all") and per-import costs into one cost line per strategy. Pure.

import type { Mode, StrategyName } from './arguments.ts';
import type { QuestionMetrics } from './score.ts';

export const ALL_CATEGORIES = 'all';
export const NO_CATEGORY = 'uncategorized';

export interface ScoredQuestion extends QuestionMetrics {
  conversationId: string;
  questionId: string;
  category: string;
  strategy: StrategyName;
  budget: number;
  mode: Mode;
  /** The turn the context was built at; null when the question came before every turn. */
  turnId: string | null;
  /** Tokens of the context as sent (the ledger's count; 0 for an empty context). */
  tokens: number;
  /** The budget as a share of the conversation's length in tokens (can pass 1 on a short one). */
  budgetShare: number;
}

export interface ResultRow {
  strategy: StrategyName;
  budget: number;
  mode: Mode;
  category: string;
  /** Questions scored for ER (those with evidence). */
  n: number;
  ap: number | null;
  atr: number | null;
  er_all: number | null;
  er_frac: number | null;
  /** Answer containment (SQuAD-normalised answer in the context), over questions with an answer. */
  containment: number | null;
  /** Mean tokens of the contexts sent. */
  tokens: number | null;
  /** Mean of budget / conversation tokens. */
  budget_share: number | null;
}

export interface ImportCost {
  strategy: StrategyName;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  compactions: number;
  milliseconds: number;
}

export interface CostRow {
  strategy: StrategyName;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  compactions: number;
  seconds: number;
}

/** "all" first, then the categories in alphabetical order. */
export function categoriesOf(scores: ReadonlyArray<{ category: string }>): string[] {
  return [ALL_CATEGORIES, ...[...new Set(scores.map((score) => score.category))].sort()];
}

export function aggregateRows(
  scores: readonly ScoredQuestion[],
  order: { strategies: readonly StrategyName[]; budgets: readonly number[]; modes: readonly Mode[] },
): ResultRow[] {
  const groups = new Map<string, ScoredQuestion[]>();
  const add = (key: string, score: ScoredQuestion) => {
    const group = groups.get(key);
    if (group) group.push(score);
    else groups.set(key, [score]);
  };
  for (const score of scores) {
    add(rowKey(score.strategy, score.budget, score.mode, ALL_CATEGORIES), score);
    add(rowKey(score.strategy, score.budget, score.mode, score.category), score);
  }
  const categories = categoriesOf(scores);
  const rows: ResultRow[] = [];
  for (const strategy of order.strategies) {
    for (const budget of order.budgets) {
      for (const mode of order.modes) {
        for (const category of categories) {
          const group = groups.get(rowKey(strategy, budget, mode, category)) ?? [];
          rows.push({
            strategy,
            budget,
            mode,
            category,
            n: group.filter((score) => score.erAll !== null).length,
            ap: meanOf(group.map((score) => score.ap)),
            atr: meanOf(group.map((score) => score.atr)),
            er_all: meanOf(group.map((score) => score.erAll)),
            er_frac: meanOf(group.map((score) => score.erFrac)),
            containment: meanOf(group.map((score) => score.containment)),
            tokens: meanOf(group.map((score) => score.tokens)),
            budget_share: meanOf(group.map((score) => score.budgetShare)),
          });
        }
      }
    }
  }
  return rows;
}

function rowKey(strategy: string, budget: number, mode: string, category: string): string {
  return JSON.stringify([strategy, budget, mode, category]);
}

/** The mean of the values that apply, rounded to 4 decimals (stable output); null when none does. */
export function meanOf(values: ReadonlyArray<number | null>): number | null {
  const present = values.filter((value): value is number => value !== null);
  if (present.length === 0) return null;
  return roundTo(present.reduce((total, value) => total + value, 0) / present.length, 4);
}

export function sumCosts(costs: readonly ImportCost[], strategies: readonly StrategyName[]): CostRow[] {
  return strategies.map((strategy) => {
    const mine = costs.filter((cost) => cost.strategy === strategy);
    const sum = (pick: (cost: ImportCost) => number) => mine.reduce((total, cost) => total + pick(cost), 0);
    return {
      strategy,
      calls: sum((cost) => cost.calls),
      input_tokens: sum((cost) => cost.inputTokens),
      output_tokens: sum((cost) => cost.outputTokens),
      compactions: sum((cost) => cost.compactions),
      seconds: roundTo(sum((cost) => cost.milliseconds) / 1000, 3),
    };
  });
}

function roundTo(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
