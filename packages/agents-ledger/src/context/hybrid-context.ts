// The hybrid context: one budget, several sources. Raw turns that answer the incoming message best,
// from anywhere on the line (recall: bm25 widened by feedback, with the turns beside each match,
// retrieval/recall-turns.ts), take what they need of their share first; the summary
// (or the topics nearest the message) and the recent raw turns take the rest. Summaries alone lose
// footnote facts; retrieval alone loses the thread; together they keep both. The share is a policy
// (RetrievalPolicy), chosen from the evaluation (docs/context.md#retrieval-and-the-hybrid-context).

import { countContentTokens, countMessagesTokens, InvalidInputError, type TokenCounter, type Turn } from '@agent-ledger/core';
import type { StoreOperations } from '@agent-ledger/store';
import {
  type BuildContextOptions,
  type BuiltContext,
  buildContextOnLine,
  type RetrievalPolicy,
  validateContextOptions,
} from '../build-context.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { newestRows, readSessionLine, type SessionLine } from '../line/session-line.ts';
import { DEFAULT_RECALL_TUNING, packRecall, rankRecall } from '../retrieval/recall-turns.ts';
import { turnFromRow } from '../store/row-mapping.ts';
import { CONTINUATION_MARKER } from './assemble-context.ts';
import type { SemanticQuery } from './semantic-query.ts';

/** Measured best on devops and LongMemEval (docs/benchmarks.md): 0.75 and 0.9 kept less evidence. */
export const DEFAULT_RETRIEVAL_SHARE = 1;
export const DEFAULT_RETRIEVAL_MAX_TOKENS = 2000;
/**
 * No relevance cut-off by default since recall (issue 18): with the turns beside each match valued
 * at a share of it, a weak match still brings its neighbourhood, and 0.3 kept less on LoCoMo
 * (docs/benchmarks.md, "Choosing recall's settings"). Plain bm25 (issue 8) had measured 0.3 best.
 */
export const DEFAULT_MIN_RELEVANCE = 0;

/** `semantic`: the query's vector when the ledger has an Embedder (semantic-query.ts); bm25 alone without. */
export async function buildHybridContext(
  ledger: LedgerContext,
  turnId: string,
  options: BuildContextOptions,
  semantic?: SemanticQuery,
): Promise<BuiltContext> {
  const ranking = semantic?.queryVector ? { model: semantic.model, queryVector: semantic.queryVector } : undefined;
  const built = await buildRankedContext(ledger, turnId, options, ranking);
  if (!semantic || semantic.unembeddedTurns === 0) return built;
  const missingVectors = { model: semantic.model, turns: semantic.unembeddedTurns, rankedByMeaning: ranking !== undefined };
  return { ...built, missingVectors };
}

async function buildRankedContext(
  ledger: LedgerContext,
  turnId: string,
  options: BuildContextOptions,
  semantic: { model: string; queryVector: readonly number[] } | undefined,
): Promise<BuiltContext> {
  const query = options.query?.trim() ?? '';
  const { policy, share, minRelevance } = checkedPolicy(options, query);
  validateContextOptions(options);
  // The line is read once; every part below starts from it.
  const line = await readSessionLine(ledger.store, turnId, { sessionId: options.sessionId, full: options.full });
  const usual = (usualOptions: BuildContextOptions) => buildContextOnLine(ledger, line, usualOptions);
  // Nothing to retrieve by: the whole budget goes to the usual context.
  if (query === '') return usual({ ...options, retrieval: false });
  const budget = options.budgetTokens;
  const { tokenCounter } = ledger;
  // The newest exchange (the message being answered, and any tool calls and results since) is kept
  // before anything is retrieved: a context without it cannot be answered. After a complete answer
  // nothing is being asked, but a request still needs a user message: the newest user turn's room
  // is kept (the smallest valid context, assemble-context.ts), and retrieval may take the rest.
  const newest = await keptNewest(ledger.store, line);
  const kept = newest.tokens;
  const reserved = kept === 0 ? 0 : kept + joinSlack(tokenCounter);
  const cap = policy.maxTokens ?? Number.POSITIVE_INFINITY;
  const retrievalBudget =
    budget === undefined
      ? (policy.maxTokens ?? DEFAULT_RETRIEVAL_MAX_TOKENS)
      : Math.max(0, Math.min(Math.floor(budget * share), budget - reserved, cap));
  // Ranked once (the searches, neighbours and token counts), packed once or twice below.
  const rank = (excludeTurnIds: ReadonlySet<string>) =>
    rankRecall(ledger, line, { ...policy.recall, query, semantic, minRelevance, excludeTurnIds });
  const newestIds = new Set(newest.turnIds);
  let ranked = retrievalBudget > 0 ? await rank(newestIds) : [];
  let retrieval = packRecall(ledger, ranked, retrievalBudget, newestIds);
  const baseOptions: BuildContextOptions = {
    ...options,
    retrieval: false,
    reserveRecentTokens: Math.max(options.reserveRecentTokens ?? 0, reserved),
  };
  if (retrieval.pieces.length === 0) return usual(baseOptions);
  // Two tokens for the blank line joining the parts, whose count is not exactly the sum.
  const base = await usual({
    ...baseOptions,
    budgetTokens: budget === undefined ? undefined : Math.max(0, budget - retrieval.tokens - 2),
  }).catch((error: unknown) => {
    if (isBudgetTooSmall(error)) return null;
    throw error;
  });
  // What retrieval took left too little for even the newest user turn (nothing was reserved after
  // a complete answer, or the exact count came out above the estimate): retrieval gives way, and
  // the usual context has the whole budget (or names the budget it needs).
  if (base === null) return usual(baseOptions);
  // A retrieved turn the recent turns already show is said twice: retrieve again without those,
  // within the room the first retrieval took (so the base still fits).
  const shown = new Set(base.includedTurnIds);
  if (retrieval.pieces.some((piece) => piece.turnIds.some((id) => shown.has(id)))) {
    const excluded = new Set([...newest.turnIds, ...shown]);
    // Feedback reads the first matches not excluded, so with it on the ranking depends on them.
    if ((policy.recall?.feedbackTerms ?? DEFAULT_RECALL_TUNING.feedbackTerms) > 0) ranked = await rank(excluded);
    retrieval = packRecall(ledger, ranked, retrieval.tokens, excluded);
    if (retrieval.pieces.length === 0) return base;
  }
  const system = [base.system, retrieval.text].filter(Boolean).join('\n\n');
  const tokens = tokenCounter.countText(system) + countMessagesTokens(tokenCounter, base.messages);
  const retrievedTurnIds = retrieval.pieces.flatMap((piece) => piece.turnIds);
  if (budget !== undefined && tokens > budget) {
    // The join counted a little more than its parts: the usual context alone is within budget.
    return base;
  }
  return { ...base, system, tokens, retrievedTurnIds };
}

/** The retrieval policy, its share and relevance floor checked (the floor only when there is a query to rank by). */
function checkedPolicy(options: BuildContextOptions, query: string) {
  const policy: RetrievalPolicy = typeof options.retrieval === 'object' ? options.retrieval : {};
  const share = policy.share ?? DEFAULT_RETRIEVAL_SHARE;
  if (typeof share !== 'number' || !(share >= 0 && share <= 1)) {
    throw new InvalidInputError(`retrieval.share must be a number from 0 to 1; got ${String(share)}.`, 'retrieval.share');
  }
  const minRelevance = policy.minRelevance ?? DEFAULT_MIN_RELEVANCE;
  if (query !== '' && (typeof minRelevance !== 'number' || !(minRelevance >= 0 && minRelevance <= 1))) {
    throw new InvalidInputError(
      `retrieval.minRelevance must be a number from 0 to 1; got ${String(minRelevance)}.`,
      'retrieval.minRelevance',
    );
  }
  return { policy, share, minRelevance };
}

/** buildContext's refusal of a budget too small for the smallest valid context (assemble-context.ts). */
function isBudgetTooSmall(error: unknown): boolean {
  return InvalidInputError.isInstance(error) && error.field === 'budgetTokens';
}

/**
 * Room for the continuation marker a context may open with (assembly counts it before it knows
 * whether the kept turns start with the assistant) and the blank line joining the parts.
 */
function joinSlack(tokenCounter: TokenCounter): number {
  return countContentTokens(tokenCounter, [{ type: 'text', text: CONTINUATION_MARKER }]) + 2;
}

/**
 * What the context keeps before anything is retrieved: the newest exchange (its turns and tokens),
 * or, after a complete answer, the room of the newest user turn (no turn ids: it is not excluded
 * from recall). Reads the line's newest few turns, and more only when a walk runs past them.
 */
async function keptNewest(store: StoreOperations, line: SessionLine): Promise<{ turnIds: string[]; tokens: number }> {
  for (const count of [FIRST_READ, NEWEST_ROWS_READ]) {
    const rows = await newestRows(store, line, count);
    const turns = rows.map((row) => turnFromRow(row));
    // The walks end inside what was read, or the line (or the walk's limit) ends there.
    const enough = rows.length < count || count === NEWEST_ROWS_READ;
    const exchange = newestExchange(turns);
    if (!exchange.ended && !enough) continue;
    if (exchange.tokens > 0) return { turnIds: exchange.turnIds, tokens: exchange.tokens };
    const user = newestUserTurnTokens(turns);
    if (user.ended || enough) return { turnIds: exchange.turnIds, tokens: user.tokens };
  }
  return { turnIds: [], tokens: 0 };
}

/**
 * The turns back from the line's end to the last user turn that says something (not only tool
 * results), compactions skipped, with their tokens: what the model is being asked to answer. Nothing
 * when the newest turn is an assistant's answer without tool calls: that exchange is complete.
 * `ended`: the walk stopped on its own (not for want of turns read).
 */
function newestExchange(newestFirst: readonly Turn[]): { turnIds: string[]; tokens: number; ended: boolean } {
  const turnIds: string[] = [];
  let tokens = 0;
  for (const turn of newestFirst) {
    if (turnIds.length >= NEWEST_EXCHANGE_MAX_TURNS) return { turnIds, tokens, ended: true };
    if (turn.turnType !== 'normal') continue;
    const answered = turn.role === 'assistant' && !turn.content.some((block) => block.type === 'tool_use');
    if (turnIds.length === 0 && answered) return { turnIds, tokens, ended: true };
    turnIds.push(turn.id);
    tokens += turn.tokenCount;
    if (turn.role === 'user' && turn.content.some((block) => block.type === 'text')) return { turnIds, tokens, ended: true };
  }
  return { turnIds, tokens, ended: false };
}

/**
 * The tokens of the newest user turn back from the line's end, compactions and assistant answers
 * skipped, with the assistant turn whose calls it answers when it carries tool results: what the
 * smallest valid context holds (assemble-context.ts, smallestContext). 0 when none is near.
 */
function newestUserTurnTokens(newestFirst: readonly Turn[]): { tokens: number; ended: boolean } {
  let tokens = 0;
  for (const [read, turn] of newestFirst.entries()) {
    if (read >= NEWEST_EXCHANGE_MAX_TURNS) return { tokens, ended: true };
    if (turn.turnType !== 'normal') continue;
    const answers = turn.content.some((block) => block.type === 'tool_result');
    // Results are read first (walking back); the assistant turn before them holds their calls.
    if (turn.role === 'assistant' && tokens > 0) return { tokens: tokens + turn.tokenCount, ended: true };
    if (turn.role === 'user') tokens += turn.tokenCount;
    if (turn.role === 'user' && !answers) return { tokens, ended: true };
  }
  return { tokens, ended: false };
}

/** A tool loop longer than this is not one exchange; the rest competes like any older turn. */
const NEWEST_EXCHANGE_MAX_TURNS = 24;
/** The newest turns read first: enough for a question and a short tool round. */
const FIRST_READ = 6;
/** Read when the walks go past FIRST_READ: the exchange's limit, with room for compactions among them. */
const NEWEST_ROWS_READ = 2 * NEWEST_EXCHANGE_MAX_TURNS;
