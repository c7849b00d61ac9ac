// The hybrid context: one budget, several sources. The summary (or the topics nearest the incoming
// message) and the recent raw turns come from buildContext in part of the budget; raw turns that
// match the message best, from anywhere on the line, fill the rest (retrieval). Summaries alone lose
// footnote facts; retrieval alone loses the thread; together they keep both. The split is a policy
// (RetrievalPolicy), chosen from the evaluation (docs/context.md#hybrid).

import { countMessagesTokens, InvalidInputError } from '@nexus/core';
import { type BuildContextOptions, type BuiltContext, buildContext, type RetrievalPolicy } from '../build-context.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { retrieveTurns } from '../retrieval/retrieve-turns.ts';

export const DEFAULT_RETRIEVAL_SHARE = 0.75;
export const DEFAULT_RETRIEVAL_MAX_TOKENS = 2000;

export function buildHybridContext(ledger: LedgerContext, turnId: string, options: BuildContextOptions): BuiltContext {
  const policy: RetrievalPolicy = typeof options.retrieval === 'object' ? options.retrieval : {};
  const share = policy.share ?? DEFAULT_RETRIEVAL_SHARE;
  if (typeof share !== 'number' || !(share >= 0 && share <= 1)) {
    throw new InvalidInputError(`retrieval.share must be a number from 0 to 1; got ${String(share)}.`, 'retrieval.share');
  }
  const query = options.query?.trim() ?? '';
  // Nothing to retrieve by: the whole budget goes to the usual context.
  if (query === '') return buildContext(ledger, turnId, { ...options, retrieval: false });
  const budget = options.budgetTokens;
  const base = buildContext(ledger, turnId, {
    ...options,
    retrieval: false,
    budgetTokens: budget === undefined ? undefined : budget - Math.floor(budget * share),
  });
  const { tokenCounter } = ledger;
  const separator = base.system ? 1 : 0;
  const room =
    budget === undefined ? (policy.maxTokens ?? DEFAULT_RETRIEVAL_MAX_TOKENS) : Math.max(0, budget - base.tokens - separator);
  const retrieval = retrieveTurns(ledger, turnId, {
    query,
    budgetTokens: room,
    sessionId: options.sessionId,
    excludeTurnIds: new Set(base.includedTurnIds),
  });
  if (retrieval.pieces.length === 0) return base;
  const system = [base.system, retrieval.text].filter(Boolean).join('\n\n');
  const tokens = tokenCounter.countText(system) + countMessagesTokens(tokenCounter, base.messages);
  // Counts of joined text are not exactly the sum of the parts: never go over the budget for it.
  if (budget !== undefined && tokens > budget) return base;
  const retrievedTurnIds = retrieval.pieces.flatMap((piece) => piece.turnIds);
  return { ...base, system, tokens, retrievedTurnIds };
}
