// A session is a named line of turns with a head. A fork is a session whose history starts at a
// turn of another session: nothing is copied, the fork's first turn simply names that turn as
// its parent.

export interface SessionSettings {
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** Headroom left for the next turn: compaction triggers above `contextWindow - reserveTokens`. */
  reserveTokens: number;
  /** Recent raw turns a compaction keeps verbatim, by tokens. */
  keepRecentTokens: number;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = {
  contextWindow: 200_000,
  reserveTokens: 20_000,
  keepRecentTokens: 30_000,
};

/**
 * What a model API taught the ledger about a session's real window: a "prompt is too long: N tokens
 * > M maximum" (or an exact count-tokens answer) against what the ledger's estimate counted for the
 * same prompt. The session's settings are then rescaled into the estimate's units, so the next
 * prompt fits the window the provider enforces; `originalSettings` keeps what the user set.
 */
export interface SessionCalibration {
  /** Provider tokens per estimated token in the latest report (at least 1). */
  tokensPerEstimatedToken: number;
  /** The smallest window the provider reported, in its own tokens; null when it named none. */
  providerWindowTokens: number | null;
  /** The settings as the user gave them, before any calibration. */
  originalSettings: SessionSettings;
  /** The last report: what the provider counted and what the ledger had estimated. */
  promptTokens: number;
  estimatedTokens: number;
  calibratedAt: number;
}

export interface Session {
  id: string;
  label: string | null;
  headTurnId: string | null;
  /** The session this one was forked from, and the turn it was forked at. */
  parentSessionId: string | null;
  forkedFromTurnId: string | null;
  /** True when this session was forked with `{ full: true }` (a record; the floor below acts). */
  rebuildFromRaw: boolean;
  /**
   * Compactions at depth ≤ this are ignored by this session, so its context is rebuilt from raw
   * turns until it compacts on its own: set by a `full` fork and inherited by forks of it.
   */
  ignoreCompactionsThroughDepth: number | null;
  settings: SessionSettings;
  /** Set once a model API reported the settings were too large for it; null otherwise. */
  calibration: SessionCalibration | null;
  /** The compaction strategy `compact` uses when none is named (`flat`, `union-find`); null: the ledger's default. Forks inherit it. */
  compactionStrategy: string | null;
  createdAt: number;
}
