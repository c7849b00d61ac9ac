// The seam between the ledger and the ways of compacting. A strategy decides what to summarize and
// produces the summary; the ledger reads the window, checks the result and writes the compaction
// turn, so every strategy's output is stored and read the same way.
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
import type { ForestConfig } from '@agent-ledger/forest';
import type { StoreOperations, TurnRecord } from '@agent-ledger/store';
import type { Summarizer, SummarizerCall } from '@agent-ledger/summarizers';
import type { ForestCache } from '../topics/forest-cache.ts';

export type { ForestOutcome } from './union-find-strategy.ts';

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

/** What a strategy's state hooks may use: the store (reads only, outside the write) and this ledger's caches. */
export interface StrategyEnvironment {
  store: StoreOperations;
  /** Forests this process loaded or built, by compaction id (union-find's). */
  forests: ForestCache;
  /** Settings for new union-find forests. */
  forestConfig: Partial<ForestConfig>;
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

/**
 * Contract: `plan` never writes and reads nothing from the store. It throws
 * `NothingToCompactError` when no turn can be summarized and lets a summarizer's error propagate;
 * in both cases the ledger writes nothing.
 */
export interface CompactionStrategy<State = unknown> {
  readonly name: string;
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
}
