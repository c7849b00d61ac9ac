// What every importer turns a transcript into: a stream of entries in source order, each naming
// the source lines it holds and its parent line. The writer (write-entries.ts) knows nothing of
// any format, and the formats know nothing of the ledger.

import type { CompactionTrigger, ContentBlock, Role } from '@agent-ledger/core';

export type FormatName = 'claude-code' | 'codex' | 'pi' | 'messages' | 'nexus-eval';

/** The source session a file holds; yielded before any other entry. */
export interface SourceSession {
  kind: 'session';
  /** `format:id`, stable across re-imports: the source's own session id. */
  key: string;
  label: string;
  /** This session continues another one from a turn (a subagent, a Codex or pi fork). */
  forkOf?: {
    key: string;
    /** The source line the fork starts after, when the source names it. */
    atLineId?: string;
    /** Otherwise the last turn of the parent at or before this time (ms). */
    atTime?: number;
    /** The file repeats the parent's lines with their ids (a pi fork): those are not imported twice. */
    copiesLines?: boolean;
    /**
     * A subagent's conversation (its id): work a tool call of the parent started, answered there.
     * Its turns carry `metadata.subagent`, so doctor knows the call it forks at is not left open.
     */
    subagent?: string;
  };
}

/**
 * `parentLineId`: undefined for "after the previous entry" (linear formats), null for a root, or
 * the id of the source line this one follows (tree formats; a branch when it is not the newest).
 */
interface EntryBase {
  lineIds: string[];
  parentLineId?: string | null;
  /** 1-based line of the file the entry starts at, for messages. */
  line: number;
}

export interface TurnEntry extends EntryBase {
  kind: 'turn';
  role: Role;
  content: ContentBlock[];
  /** For a turn merged from several lines: each line's blocks (content is their concatenation). */
  blocksByLine?: ContentBlock[][];
  timestamp?: number;
  model?: string;
  metadata?: Record<string, unknown>;
  /** The label of the fork this entry starts, when the source names one (a `nexus export`'s branch). */
  forkLabel?: string;
}

export interface CompactionEntry extends EntryBase {
  kind: 'compaction';
  summary: string;
  /** The last source line the summary covers (default: the entry's parent). */
  summarizedThroughLineId?: string;
  /** Where the source keeps raw lines after the summary, when it does. */
  firstKeptLineId?: string;
  trigger: CompactionTrigger;
  timestamp?: number;
  metadata?: Record<string, unknown>;
  /** The label of the fork this entry starts, when the source names one (a `nexus export`'s branch). */
  forkLabel?: string;
}

/** Lines that add no turn but may be named as a parent (metadata, thinking-only lines). */
export interface SkipEntry extends EntryBase {
  kind: 'skip';
}

/** A line that could not be read: reported with its line number, then skipped. */
export interface ProblemEntry {
  kind: 'problem';
  line: number;
  message: string;
}

/** Lines at the end of a file that the tool writing it has not finished: read again next time. */
export interface UnfinishedEntry {
  kind: 'unfinished';
  line: number;
}

export type TranscriptEntry = SourceSession | TurnEntry | CompactionEntry | SkipEntry | ProblemEntry | UnfinishedEntry;

/** One line of a file, 1-based. */
export interface SourceLine {
  number: number;
  text: string;
  /** False for a last line with no newline after it (a line still being written, perhaps). */
  terminated?: boolean;
  /** Where the line starts in the file, and where the next one starts, in bytes (files only). */
  offset?: number;
  end?: number;
}

/** One format: recognises its own first lines and reads a file into entries, line by line. */
export interface TranscriptFormat {
  name: FormatName;
  /** True when these first non-empty lines (up to 5) are this format. */
  detect(firstLines: readonly string[]): boolean;
  read(lines: AsyncIterable<SourceLine>, origin: { path: string }): AsyncIterable<TranscriptEntry>;
}

/** Milliseconds from an ISO time or epoch ms; undefined when absent or unreadable. */
export function timeOf(value: unknown): number | undefined {
  const time = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isSafeInteger(time) && time >= 0 ? time : undefined;
}

/** A label a person recognises: the tool, the project folder and when the session started. */
export function sessionLabel(format: string, project: string | undefined, time: number | undefined, title?: string): string {
  const when = time === undefined ? '' : ` ${new Date(time).toISOString().slice(0, 16).replace('T', ' ')}`;
  return `${format}${project ? ` ${project}` : ''}${when}${title ? ` · ${title}` : ''}`;
}
