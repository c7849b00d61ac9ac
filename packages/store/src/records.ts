// The rows a ledger store reads and writes, engine-neutral: plain values (JSON columns already
// parsed, booleans as booleans, timestamps as epoch milliseconds). Every engine returns exactly
// these shapes; the ledgers map them to the domain types of @agent-ledger/core.

export interface SessionRecord {
  id: string;
  label: string | null;
  headTurnId: string | null;
  parentSessionId: string | null;
  forkedFromTurnId: string | null;
  rebuildFromRaw: boolean;
  /** Compactions at or above this depth are ignored in this session's view (a `full` fork's). */
  ignoreCompactionsThroughDepth: number | null;
  contextWindow: number;
  reserveTokens: number;
  keepRecentTokens: number;
  compactionStrategy: string | null;
  /** What a model API taught the ledger about this session's window (core's SessionCalibration). */
  calibration: unknown;
  createdAt: number;
}

export interface TurnRecord {
  id: string;
  sessionId: string;
  parentTurnId: string | null;
  /** Position on its session's line: unique per session (the chain is read by depth ranges). */
  depth: number;
  role: 'user' | 'assistant' | null;
  content: unknown;
  model: string | null;
  tokenCount: number;
  timestamp: number;
  toolCallCount: number;
  metadata: unknown;
  turnType: 'normal' | 'compaction';
  summary: string | null;
  summarizedThroughTurnId: string | null;
  firstKeptTurnId: string | null;
  tokensBefore: number | null;
  tokensAfter: number | null;
  trigger: 'threshold' | 'overflow' | 'manual' | null;
  strategy: string | null;
  summarizer: string | null;
  usageInputTokens: number | null;
  usageOutputTokens: number | null;
  /** The nearest compaction at or above this turn in its chain (itself, for a compaction). */
  latestCompactionId: string | null;
  /** Sum of the token counts of the normal turns from the root through this one. */
  cumulativeTokens: number;
  /** What full-text search indexes: the message as a person reads it, or the summary. */
  searchText: string | null;
  /** For compactions: the depth range of the chain the summary stands in for, and what it folded in. */
  coversFromDepth: number | null;
  previousCompactionId: string | null;
  summarizedThroughDepth: number | null;
  /**
   * The turn's link in its line's hash chain (turnHash: its parent's hash and its content). Null
   * only on a row no code wrote that way: the migration that added it hashed every older turn.
   */
  hash: string | null;
}

/** A stored turn as read: `hasChildren` is derived by the store (turns are never updated). */
export interface StoredTurn extends TurnRecord {
  hasChildren: boolean;
}

/** One turn citing one event (written with the turn). */
export interface TurnEventLink {
  turnId: string;
  eventId: string;
}
