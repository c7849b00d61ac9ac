// What `nexus doctor` reads to check the agents ledger's stored invariants (packages/agents-ledger
// doctor.ts, check-tool-calls.ts): scans over every compaction and every turn that calls a tool,
// paged by position on a session's line (never the whole table in memory), and the full-text
// index's own consistency check. Results are plain values; the checks themselves live above.

/** Where a page of a scan ended: pass it as `after` to read the next page. Ordered by (sessionId, depth). */
export interface LinePosition {
  sessionId: string;
  depth: number;
}

export interface ScanPage {
  /** Resume after this position; from the first one when absent. */
  after?: LinePosition;
  limit: number;
}

/** A compaction's pointers and what they resolve to, for the consistency checks. */
export interface CompactionPointers {
  id: string;
  sessionId: string;
  depth: number;
  summarizedThroughTurnId: string;
  firstKeptTurnId: string | null;
  previousCompactionId: string | null;
  coversFromDepth: number | null;
  summarizedThroughDepth: number | null;
  /** Whether `summarizedThroughTurnId` names a stored turn, and that turn's depth (null when not). */
  throughExists: boolean;
  throughDepth: number | null;
  /** The depth of `firstKeptTurnId`'s turn; null when absent or unresolved. */
  keptDepth: number | null;
}

/** A normal turn with at least one tool_use block. */
export interface ToolCallingTurn {
  id: string;
  sessionId: string;
  depth: number;
  content: unknown;
}

export interface MaintenanceStore {
  /**
   * The engine's own check of its storage (SQLite: PRAGMA quick_check): null when it finds nothing,
   * else what it found, in its words.
   */
  checkStorageIntegrity(): Promise<string | null>;
  /**
   * Checks that the turns' full-text index agrees with the turns: null when it does, else what is
   * wrong and how to rebuild it (engine-specific words, for a person to read).
   */
  checkTurnSearchIndex(): Promise<string | null>;
  /** Every compaction with its pointers resolved, by (sessionId, depth). */
  compactionPointers(page: ScanPage): Promise<CompactionPointers[]>;
  /** Every normal turn that calls a tool, by (sessionId, depth). */
  toolCallingTurns(page: ScanPage): Promise<ToolCallingTurn[]>;
  /** The sessions forked at each of these turns, oldest first (turns no session forks from are absent). */
  sessionsForkedAt(turnIds: readonly string[]): Promise<Map<string, string[]>>;
}
