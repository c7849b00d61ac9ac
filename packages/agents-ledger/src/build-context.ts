// buildContext: the latest compaction's summary, then the raw turns from its firstKeptTurnId, as
// Anthropic Messages API input. Reads only the turns since that compaction (newest first, and only
// as many as the budget can hold), never the whole history.

import { type CompactionTurn, InvalidInputError, type Message, type NormalTurn } from '@agent-ledger/core';
import type { StoreOperations } from '@agent-ledger/store';
import { assembleContext, smallestMessages } from './context/assemble-context.ts';
import { groupIntoUnits } from './context/turn-units.ts';
import { type LedgerContext, strategyEnvironment } from './ledger-context.ts';
import { rawSegments, readSessionLine, type SessionLine } from './line/session-line.ts';
import type { RecallTuning } from './retrieval/recall-turns.ts';
import {
  type ChainSegment,
  eventIdsOf,
  type KnownRows,
  type LineRow,
  readChain,
  readChainRangeNewestFirst,
} from './store/chain.ts';
import { turnFromRow } from './store/row-mapping.ts';
import {
  type ContextSummary,
  DEFAULT_TOPIC_SHARE,
  type InjectedTopic,
  type SummaryRequest,
} from './strategies/compaction-strategy.ts';
import { renderSummaryBlock } from './summary-block.ts';

export interface BuildContextOptions {
  /**
   * Hard limit on the tokens of `system` + `messages`. Oldest raw turns go first, then the summary;
   * a budget too small for anything else gets the newest user turn alone, and one too small even
   * for that throws InvalidInputError naming the budget it needs (`messages` is never empty).
   */
  budgetTokens?: number;
  /** Your own system prompt; the summary follows it. */
  systemPrompt?: string;
  /** See the history as this session does (default: the session that wrote the turn). */
  sessionId?: string;
  /** Ignore every compaction and rebuild from raw turns, newest first, within the budget. */
  full?: boolean;
  /**
   * The incoming message (or a runtime's own query): with a union-find compaction, the topics
   * nearest it fill the room first, as deep as they go; then the best lines of the others
   * (topics/fit-topics.ts).
   */
  query?: string;
  /** Most of the budget topics may take when raw turns want the rest (0–1, default 0.5). */
  topicShare?: number;
  /**
   * Also retrieve raw turns matching `query` from the whole line (bm25), beside the summary or
   * topics and the recent turns: the hybrid context (context/hybrid-context.ts). `true` takes the
   * defaults.
   */
  retrieval?: boolean | RetrievalPolicy;
  /**
   * Room the newest raw turns keep before the summary or topics are fitted (default 0: the summary
   * is fitted first). The hybrid context reserves the newest exchange this way, so the message
   * being answered is never crowded out.
   */
  reserveRecentTokens?: number;
}

export interface RetrievalPolicy {
  /**
   * Most of the budget retrieved turns may take; they are chosen first and what they leave goes to
   * the summary and recent turns (0–1, default 1: retrieval stops at the matches it has).
   */
  share?: number;
  /**
   * Most tokens retrieved turns may take, beside the share (default: no further cap when a budget
   * is given, 2000 when none is).
   */
  maxTokens?: number;
  /** Matches scoring below this fraction of the best match's bm25 score are left out (0–1). */
  minRelevance?: number;
  /** Recall's finer settings (feedback, neighbours, packing); the measured defaults when absent. */
  recall?: RecallTuning;
}

export interface BuiltContext {
  system: string;
  messages: Message[];
  tokens: number;
  /** The compaction whose summary is in `system`, if any. */
  compactionTurnId: string | null;
  includedTurnIds: string[];
  droppedTurnIds: string[];
  /** For included turns that cite events of the events ledger: turn id → event ids. */
  citedEvents: Record<string, string[]>;
  summaryTruncated: boolean;
  /** Topics of a union-find compaction injected into `system`, each with its id to expand. */
  topics: InjectedTopic[];
  /** Live topics left out to stay within the budget. */
  omittedTopicIds: string[];
  /** Turns retrieved by the query into `system` (hybrid context), in conversation order. */
  retrievedTurnIds: string[];
  /**
   * Only on a ledger that cannot store vectors (opened read-only) while turns of the line have none
   * for the Embedder's model: how many only bm25 ranked. `embedMissing` (`nexus embed`) stores them.
   */
  missingVectors?: MissingVectors;
}

/** Turns of the line the ranking by meaning could not see (context/semantic-query.ts). */
export interface MissingVectors {
  /** The Embedder's model, whose vectors they lack. */
  model: string;
  /** Normal turns of the line with no vector of `model`: only bm25 ranked them. */
  turns: number;
  /** False when no vector of `model` is stored at all: bm25 ranked every turn, and the query was not embedded. */
  rankedByMeaning: boolean;
}

export async function buildContext(
  ledger: LedgerContext,
  turnId: string,
  options: BuildContextOptions = {},
): Promise<BuiltContext> {
  validateContextOptions(options);
  const line = await readSessionLine(ledger.store, turnId, { sessionId: options.sessionId, full: options.full });
  return buildContextOnLine(ledger, line, options);
}

/** Refuses a budget, reserve or topic share that is not a number in its range, before any read. */
export function validateContextOptions(options: BuildContextOptions): void {
  const budget = options.budgetTokens;
  if (budget !== undefined && (typeof budget !== 'number' || Number.isNaN(budget) || budget < 0)) {
    throw new InvalidInputError(`budgetTokens must be a number of tokens, 0 or more; got ${String(budget)}.`, 'budgetTokens');
  }
  const reserve = options.reserveRecentTokens;
  if (reserve !== undefined && (typeof reserve !== 'number' || !(reserve >= 0))) {
    throw new InvalidInputError(
      `reserveRecentTokens must be a number of tokens, 0 or more; got ${String(reserve)}.`,
      'reserveRecentTokens',
    );
  }
  const share = options.topicShare;
  if (share !== undefined && (typeof share !== 'number' || !(share >= 0 && share <= 1))) {
    throw new InvalidInputError(`topicShare must be a number from 0 to 1; got ${String(share)}.`, 'topicShare');
  }
}

/**
 * buildContext on a line already read (the hybrid context reads it once for its parts). The line must
 * have been read with the same `sessionId` and `full` as `options` say.
 */
export async function buildContextOnLine(
  ledger: LedgerContext,
  line: SessionLine,
  options: BuildContextOptions = {},
): Promise<BuiltContext> {
  const { store } = ledger;
  const { compaction, view } = line;
  const budget = options.budgetTokens;
  const candidates = await loadCandidates(store, rawSegments(line), { budget, known: line.known });
  const summary = compaction
    ? await contextSummary(ledger, {
        compaction: turnFromRow(compaction) as CompactionTurn,
        viewSessionId: view.id,
        query: options.query,
        room: budget !== undefined ? summaryRoom(ledger, budget, options, candidates) : undefined,
      })
    : NO_SUMMARY;
  const assembled = assembleContext({
    systemPrompt: options.systemPrompt,
    summaryBlock: summary.summaryBlock,
    turns: candidates,
    budgetTokens: options.budgetTokens,
    reserveRecentTokens: options.reserveRecentTokens,
    tokenCounter: ledger.tokenCounter,
  });
  const citedEvents = Object.fromEntries(await eventIdsOf(store, assembled.includedTurnIds, line.known));
  return {
    ...assembled,
    compactionTurnId: compaction?.id ?? null,
    citedEvents,
    topics: summary.injected,
    omittedTopicIds: summary.omittedTopicIds,
    retrievedTurnIds: [],
  };
}

const NO_SUMMARY: ContextSummary = { summaryBlock: null, injected: [], omittedTopicIds: [] };

/**
 * The summary part, as the strategy that wrote the compaction reads it: chosen for the query and
 * fitted to the room when the strategy can (union-find's topics), else its rendered summary.
 */
async function contextSummary(ledger: LedgerContext, request: SummaryRequest): Promise<ContextSummary> {
  const strategy = ledger.strategies.get(request.compaction.strategy);
  if (strategy?.contextSummary) return strategy.contextSummary(strategyEnvironment(ledger), request);
  return { ...NO_SUMMARY, summaryBlock: renderSummaryBlock(request.compaction, strategy) };
}

/**
 * Tokens a summary that can fit itself may take: what the system prompt leaves, less what the raw
 * turns need, but raw turns may claim at most (1 - topicShare) of it when the summary competes for
 * the room. They always claim the smallest valid context (the newest user turn): a summary filling
 * the whole budget would leave no message to send, and cutting it afterwards would break its blocks.
 */
function summaryRoom(
  ledger: LedgerContext,
  budget: number,
  options: BuildContextOptions,
  candidates: readonly NormalTurn[],
): number {
  const share = options.topicShare ?? DEFAULT_TOPIC_SHARE;
  const available = budget - (options.systemPrompt ? ledger.tokenCounter.countText(options.systemPrompt) + 1 : 0);
  const rawTokens = candidates.reduce((total, turn) => total + turn.tokenCount, 0);
  const smallest = smallestMessages(groupIntoUnits(candidates), true, ledger.tokenCounter).tokens;
  const rawClaim = Math.max(Math.min(rawTokens, Math.floor(available * (1 - share))), options.reserveRecentTokens ?? 0, smallest);
  return Math.max(0, available - rawClaim);
}

async function loadCandidates(
  store: StoreOperations,
  segments: ChainSegment[],
  { budget, known }: { budget: number | undefined; known: KnownRows | undefined },
): Promise<NormalTurn[]> {
  const normal = (rows: LineRow[]) =>
    rows.filter((row) => row.turnType === 'normal').map((row) => turnFromRow(row) as NormalTurn);
  if (budget === undefined) return normal(await readChain(store, segments, known));
  // Newest first until the budget is surely full, then on to the start of a tool exchange so the
  // oldest loaded unit is whole, and at least to the newest user turn: a context too small for
  // anything else is that turn alone (assemble-context.ts, smallestContext).
  const newestFirst: NormalTurn[] = [];
  let tokens = 0;
  let sawUser = false;
  for await (const page of readChainRangeNewestFirst(store, segments, { known })) {
    for (const turn of normal(page)) {
      sawUser ||= turn.role === 'user';
      const complete = tokens > budget && sawUser && !turn.content.some((block) => block.type === 'tool_result');
      newestFirst.push(turn);
      tokens += turn.tokenCount;
      if (complete) return newestFirst.reverse();
    }
  }
  return newestFirst.reverse();
}
