// What transcript imports remember (packages/transcripts): which ledger session each source
// session became, and which turn holds each source line, so a re-run skips what it has and a grown
// transcript appends only its new lines. Keyed by the source's own key and line ids; every lookup
// is by key, so a re-run costs O(lines) whatever the ledger holds.

/** A source session (a transcript file's conversation) and the ledger session it became. */
export interface TranscriptSourceRecord {
  /** The source's own stable key (format-specific: a Claude Code session id, a pi file's id…). */
  key: string;
  format: string;
  sessionId: string;
  path: string | null;
  /** When it was first imported, epoch milliseconds. */
  importedAt: number;
}

/**
 * How far a transcript file was read: where the next import resumes (the byte offset of the first
 * line it has not finished, and that line's number). A hint: a file shorter than it, or one whose
 * byte before it is not a line break, is read from its start.
 */
export interface TranscriptPosition {
  /** The file's path as the import was given it, made absolute. */
  path: string;
  bytes: number;
  /** The 1-based number of the line at `bytes`. */
  line: number;
  /** A digest of the file's first line, so a file replaced by another is not resumed. */
  head: string;
  /** When it was recorded, epoch milliseconds. */
  updatedAt: number;
}

/** One source line and the turn holding it: null for a line before any turn (nothing holds it). */
export interface TranscriptLineRecord {
  lineId: string;
  turnId: string | null;
}

export interface ImportStore {
  getTranscriptSource(key: string): Promise<TranscriptSourceRecord | undefined>;
  /** Records a source; refuses (StorageError, nothing written) a key recorded already. */
  insertTranscriptSource(source: TranscriptSourceRecord): Promise<void>;
  /**
   * The turns holding these lines of one source: a line recorded with no turn maps to null, a line
   * never recorded is absent.
   */
  transcriptLineTurns(key: string, lineIds: readonly string[]): Promise<Map<string, string | null>>;
  /**
   * Records lines of a source, all or none; a line recorded already keeps its first turn (a re-run
   * never moves a line). The source must be recorded, and each turn must exist.
   */
  recordTranscriptLines(key: string, lines: readonly TranscriptLineRecord[]): Promise<void>;
  /**
   * Every recorded source, `limit` at a time, ordered by key in the engine's order: the sources
   * after `afterKey` (from the first when absent). For a complete export.
   */
  transcriptSourcePage(page: { afterKey?: string; limit: number }): Promise<TranscriptSourceRecord[]>;
  /**
   * One source's recorded lines (those with no turn too), `limit` at a time, ordered by line id in
   * the engine's order: the lines after `afterLineId` (from the first when absent).
   */
  transcriptLinePage(key: string, page: { afterLineId?: string; limit: number }): Promise<TranscriptLineRecord[]>;
  /**
   * The id of the newest normal turn of a session's own line written at or before `time`
   * (epoch ms): where a subagent's transcript forks its parent when only a time names the point.
   */
  turnAtTime(sessionId: string, time: number): Promise<string | undefined>;
  /** Where the next import of a transcript file resumes; undefined when it was never recorded. */
  getTranscriptPosition(path: string): Promise<TranscriptPosition | undefined>;
  /** Records (or moves, either way) where the next import of a file resumes. */
  putTranscriptPosition(position: TranscriptPosition): Promise<void>;
}
