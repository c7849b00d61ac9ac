// The seam between the ledger and the ways of compacting. A strategy decides what to summarize and
// produces the summary; the ledger reads the window, checks the result and writes the compaction
// turn, so every strategy's output is stored and read the same way.
//
// A strategy owns both sides of its compactions: the write side (loadState, plan, persist,
// committed) and the read side (how its compaction reads in a context, what a fork copies, what
// doctor checks). Nothing outside a strategy's own folder names a strategy, so a third one plugs in
// through `AgentsLedgerOptions.strategies` and runs the same contract suite
// (packages/agents-ledger/test/strategy-contract.ts).
//
// Pure planning, then one write: the ledger reads the window (and, through `loadState`, whatever a
// strategy keeps beside its compaction turns) once; `plan` works on what was read with no store I/O
// (its summarizer calls aside); then one transaction appends the compaction turn and lets the
// strategy `persist` its state. A strategy with state of its own (union-find's forest) owns how it is
// read and written; the ledger knows nothing of it, so a third strategy needs no change here.

import type {
  CompactionTrigger,
  CompactionTurn,
  NormalTurn,
  SessionSettings,
  SummarizerUsage,
  TokenCounter,
} from '@agent-ledger/core';
import type { StoreOperations, TurnRecord } from '@agent-ledger/store';
import type { Summarizer, SummarizerCall } from '@agent-ledger/summarizers';
import type { Problem } from '../problem.ts';

/**
 * The version of this interface a strategy implements. Strategies persist state beside their
 * compaction turns, so a ledger refuses a strategy written for another version instead of letting it
 * misread what an older one stored. Raise it when a member's meaning changes.
 */
export const STRATEGY_CONTRACT_VERSION = 1;

export interface CompactionInput<State = unknown> {
  sessionId: string;
  /** The compaction the current context starts from, if any. */
  previous: CompactionTurn | null;
  /** The raw turns of the current context, oldest first (compaction turns excluded). */
  window: readonly NormalTurn[];
  settings: SessionSettings;
  trigger: CompactionTrigger;
  /** A turn of `window` that must stay raw with everything after it (see CompactOptions). */
  keepFromTurnId?: string;
  instructions?: string;
  /** Size the summary should stay within, in tokens. */
  summaryTokens: number;
  summarizer: Summarizer;
  tokenCounter: TokenCounter;
  /** What the strategy's `loadState` read (undefined without one). Yours to change. */
  state: State;
}

/**
 * What a strategy's hooks may use: the store (reads only, outside a write) and the ledger's token
 * counter. Caches are the strategy's own (it is created once per ledger).
 */
export interface StrategyEnvironment {
  store: StoreOperations;
  tokenCounter: TokenCounter;
}

/** What `loadState` is told: where the compaction starts from and the window it will cut. */
export interface StateRequest {
  sessionId: string;
  previous: CompactionTurn | null;
  window: readonly NormalTurn[];
}

export interface CompactionPlan<State = unknown> {
  summary: string;
  /** The last turn of `window` the summary covers. */
  summarizedThroughTurnId: string;
  /** The first turn of `window` kept raw, or null when none is kept. */
  firstKeptTurnId: string | null;
  /** Who wrote the summary: the summarizer's name, or what its result says wrote it (a fallback). */
  summarizer: string;
  usage: SummarizerUsage;
  /** Summarizer calls made, recorded on the compaction turn (1 when omitted). */
  summarizerCalls?: number;
  /** Each model call and fallback behind the summary, when the summarizer reports them (cost per call). */
  calls?: SummarizerCall[];
  /**
   * The direct sources the summary stands for (the note-store spec's compacts=N) and their tokens;
   * when omitted, the previous compaction and the window's turns up to the cut.
   */
  sources?: { count: number; tokens: number };
  /** Strategy-specific fields recorded in the compaction turn's metadata (union-find: its topics). */
  metadata?: Record<string, unknown>;
  /** The strategy's state after this compaction, handed to `persist` and `committed`. */
  state?: State;
}

/** A compaction as a context reads it. */
export type RenderableCompaction = Pick<CompactionTurn, 'id' | 'summary' | 'summarizedThroughTurnId'> &
  Partial<Pick<CompactionTurn, 'strategy' | 'metadata'>>;

/**
 * Default share of a context's budget a summary that fits itself (union-find's topics) may take when
 * the raw turns want the rest (see docs/context.md).
 */
export const DEFAULT_TOPIC_SHARE = 0.5;

/** What a context asks of the strategy whose compaction it starts from. */
export interface SummaryRequest {
  compaction: CompactionTurn;
  /** The session whose view the context is (its drops, its line). */
  viewSessionId: string;
  /** The question the context is for, when the caller gave one. */
  query?: string;
  /**
   * Tokens the summary may take, when a budget is set; undefined: what the compaction set aside,
   * so the context costs what the compaction turn's tokenCount says.
   */
  room?: number;
}

/** A topic a context shows: one part of a summary that a strategy splits into topics (union-find's). */
export interface InjectedTopic {
  id: string;
  summaryVersion: number;
  members: number;
  /** Tokens of the block as shown (fewer than stored when lines were left out). */
  tokens: number;
  /** Cosine similarity to the query; null when no query was given. */
  similarity: number | null;
  /** Summary lines left out for room (its header then says `· N more lines by expanding`); 0 when whole. */
  linesLeftOut: number;
}

/** The summary part of a context. */
export interface ContextSummary {
  /** The block sent as the summary, or null for none. */
  summaryBlock: string | null;
  /** Topics shown, for a strategy that splits its summary into topics; [] otherwise. */
  injected: InjectedTopic[];
  /** Topics left out for want of room. */
  omittedTopicIds: string[];
}

/** A fork being made: what the strategy may copy into it, inside the fork's transaction. */
export interface ForkRequest {
  fromSessionId: string;
  toSessionId: string;
  at: number;
}

/**
 * Contract: `plan` never writes and reads nothing from the store. It throws
 * `NothingToCompactError` when no turn can be summarized and lets a summarizer's error propagate;
 * in both cases the ledger writes nothing.
 */
export interface CompactionStrategy<State = unknown> {
  readonly name: string;
  /** The STRATEGY_CONTRACT_VERSION this strategy implements. */
  readonly contractVersion: number;
  /** Reads what the strategy keeps beside its compaction turns, before planning. */
  loadState?(environment: StrategyEnvironment, request: StateRequest): Promise<State>;
  plan(input: CompactionInput<State>): Promise<CompactionPlan<State>>;
  /**
   * Writes `state` in the transaction that appends `compaction` (every write through `tx`). May run
   * more than once for one plan when the write is retried (a turn arrived meanwhile): it must write
   * the same rows each time.
   */
  persist?(tx: StoreOperations, compaction: TurnRecord, state: State): Promise<void>;
  /** After the write committed: keep what a later call may reuse (a cache). Must not write. */
  committed?(environment: StrategyEnvironment, compaction: TurnRecord, state: State): void;

  // The read side.
  /** How its compaction turn reads as a summary block; the plain block (summary-block.ts) when absent. */
  renderSummary?(compaction: RenderableCompaction): string;
  /**
   * The summary part of a context that starts from one of its compactions, chosen for the query and
   * fitted to the room; `renderSummary` of the stored summary when absent.
   */
  contextSummary?(environment: StrategyEnvironment, request: SummaryRequest): Promise<ContextSummary>;
  /** Copies what a fork inherits besides its turns (every strategy is asked, whichever the session uses). */
  forked?(tx: StoreOperations, fork: ForkRequest): Promise<void>;
  /** Checks the state it keeps, for doctor: problems as data, nothing repaired. */
  check?(environment: StrategyEnvironment): Promise<Problem[]>;
}
