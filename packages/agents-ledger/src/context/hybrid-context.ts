// The hybrid context: one budget, several sources. Raw turns that match the incoming message best,
// from anywhere on the line (retrieval, bm25), take what they need of their share first; the summary
// (or the topics nearest the message) and the recent raw turns take the rest. Summaries alone lose
// footnote facts; retrieval alone loses the thread; together they keep both. The share is a policy
// (RetrievalPolicy), chosen from the evaluation (docs/context.md#retrieval-and-the-hybrid-context).

import { countMessagesTokens, InvalidInputError } from '@nexus/core';
import { type BuildContextOptions, type BuiltContext, buildContext, type RetrievalPolicy } from '../build-context.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { retrieveTurns } from '../retrieval/retrieve-turns.ts';

/** Measured best on devops and LongMemEval (docs/benchmarks.md): 0.75 and 0.9 kept less evidence. */
export const DEFAULT_RETRIEVAL_SHARE = 1;
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
  const { tokenCounter } = ledger;
  // Retrieval first, within its share: what it does not use goes to the usual context.
  const retrieval = retrieveTurns(ledger, turnId, {
    query,
    budgetTokens: budget === undefined ? (policy.maxTokens ?? DEFAULT_RETRIEVAL_MAX_TOKENS) : Math.floor(budget * share),
    sessionId: options.sessionId,
  });
  if (retrieval.pieces.length === 0) return buildContext(ledger, turnId, { ...options, retrieval: false });
  // Two tokens for the blank line joining the parts, whose count is not exactly the sum.
  const base = buildContext(ledger, turnId, {
    ...options,
    retrieval: false,
    budgetTokens: budget === undefined ? undefined : Math.max(0, budget - retrieval.tokens - 2),
  });
  const system = [base.system, retrieval.text].filter(Boolean).join('\n\n');
  const tokens = tokenCounter.countText(system) + countMessagesTokens(tokenCounter, base.messages);
  const retrievedTurnIds = retrieval.pieces.flatMap((piece) => piece.turnIds);
  if (budget !== undefined && tokens > budget) {
    // The usual context had almost no room: the retrieved turns alone, as plain retrieval sends them.
    const aloneTokens = tokenCounter.countText(retrieval.text);
    if (aloneTokens > budget) return base;
    return {
      ...base,
      system: retrieval.text,
      messages: [],
      tokens: aloneTokens,
      includedTurnIds: [],
      droppedTurnIds: [...base.droppedTurnIds, ...base.includedTurnIds],
      citedEvents: {},
      summaryTruncated: base.compactionTurnId !== null,
      topics: [],
      omittedTopicIds: [...base.omittedTopicIds, ...base.topics.map((topic) => topic.id)],
      retrievedTurnIds,
    };
  }
  return { ...base, system, tokens, retrievedTurnIds };
}
