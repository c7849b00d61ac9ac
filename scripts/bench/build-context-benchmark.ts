// buildContext at the session head, with and without a token budget, as operations to time for one history size.

import type { BuiltHistory } from './build-history.ts';
import type { TimedOperation } from './measure.ts';

export const CONTEXT_BUDGET_TOKENS = 4000;

export const CONTEXT_AT_HEAD = 'buildContext at head';
export const CONTEXT_AT_HEAD_BUDGETED = `buildContext at head, budget ${CONTEXT_BUDGET_TOKENS}`;

export function buildContextOperations(history: BuiltHistory): TimedOperation[] {
  const { ledger, headTurnId, turns: size } = history;
  return [
    { name: CONTEXT_AT_HEAD, size, run: () => ledger.buildContext(headTurnId) },
    { name: CONTEXT_AT_HEAD_BUDGETED, size, run: () => ledger.buildContext(headTurnId, { budgetTokens: CONTEXT_BUDGET_TOKENS }) },
  ];
}
