// Where an import of a transcript file starts, and where the next one resumes. A re-import of a
// file that grew reads only what was appended since: the recorded position is the byte offset of
// the first line the last import did not finish (a line still being written, a tool round not yet
// whole) or of the end of what it read. The file's first line is read again each time, since a
// format names its session there. The position is a hint: a file shorter than it, one whose first
// line changed (replaced by another file) or one with no line break just before it is read whole,
// and what is imported is always decided by the recorded lines, never by the position.

import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { TranscriptPosition } from '@agent-ledger/store';
import type { ReadFrom } from './read-lines.ts';
import type { SourceLine } from './transcript-entry.ts';

/** How many line offsets the tracker keeps: a round still being written is never longer than this. */
const REMEMBERED_LINES = 10_000;
/** The first line is read this much at a time (a Claude Code line can hold a long pasted prompt). */
const READ_CHUNK = 64 * 1024;
/** A first line longer than this is not digested for resuming: the file is then read whole each time. */
const MAX_FIRST_LINE = 8 * 1024 * 1024;

/** The digest recorded with a position, of the file's first line. */
export function headDigest(firstLine: string): string {
  return `sha256:${createHash('sha256').update(firstLine).digest('hex')}`;
}

/** Where to resume reading `path` from a recorded position, with its first line; null to read it whole. */
export function resumePoint(
  path: string,
  recorded: TranscriptPosition | undefined,
): { from: ReadFrom; first: SourceLine } | null {
  if (!recorded || recorded.line <= 2) return null;
  let descriptor: number | null = null;
  try {
    descriptor = openSync(path, 'r');
    if (fstatSync(descriptor).size < recorded.bytes) return null;
    const first = firstLine(descriptor);
    if (!first || headDigest(first.text) !== recorded.head || first.end > recorded.bytes) return null;
    const before = Buffer.alloc(1);
    readSync(descriptor, before, 0, 1, recorded.bytes - 1);
    if (before[0] !== 0x0a) return null;
    return {
      from: { bytes: recorded.bytes, line: recorded.line },
      first: { number: 1, text: first.text, terminated: true, offset: 0, end: first.end },
    };
  } catch {
    return null;
  } finally {
    if (descriptor !== null) closeSync(descriptor);
  }
}

/** The first line of an open file and the offset after its line break; null without one. */
function firstLine(descriptor: number): { text: string; end: number } | null {
  const parts: Buffer[] = [];
  let read = 0;
  while (read < MAX_FIRST_LINE) {
    const chunk = Buffer.alloc(READ_CHUNK);
    const size = readSync(descriptor, chunk, 0, READ_CHUNK, read);
    if (size === 0) return null;
    const newline = chunk.subarray(0, size).indexOf(0x0a);
    if (newline >= 0) {
      parts.push(chunk.subarray(0, newline));
      const text = Buffer.concat(parts).toString('utf8');
      return { text: text.endsWith('\r') ? text.slice(0, -1) : text, end: read + newline + 1 };
    }
    parts.push(chunk.subarray(0, size));
    read += size;
  }
  return null;
}

/** Watches the lines an import reads, to say where the next one resumes. */
export interface PositionTracker {
  /** The lines, passed through as they are read. */
  observe(lines: AsyncIterable<SourceLine>): AsyncGenerator<SourceLine>;
  /** A line the import left for next time (it and every line after it are read again). */
  unfinished(line: number): void;
  /** The file's first line, once read. */
  readonly head: string | undefined;
  /** Where the next import resumes; null when it cannot be said (then nothing is recorded). */
  next(): ReadFrom | null;
}

/** `resumedFrom`: where a resumed read picks up; the lines read before it (the head) move nothing. */
export function positionTracker(resumedFrom: ReadFrom | null = null): PositionTracker {
  const offsets = new Map<number, number>();
  let head: string | undefined;
  let end: ReadFrom | null = resumedFrom;
  let earliestUnfinished = Number.POSITIVE_INFINITY;
  return {
    async *observe(lines) {
      for await (const line of lines) {
        if (line.number === 1) head = line.text;
        if (line.offset !== undefined && line.number >= (resumedFrom?.line ?? 0)) {
          offsets.set(line.number, line.offset);
          if (offsets.size > REMEMBERED_LINES) offsets.delete(offsets.keys().next().value as number);
          // A line with no newline yet is read again next time, whatever became of it now.
          end = line.terminated !== false && line.end !== undefined ? { bytes: line.end, line: line.number + 1 } : end;
        }
        yield line;
      }
    },
    unfinished(line) {
      earliestUnfinished = Math.min(earliestUnfinished, line);
    },
    get head() {
      return head;
    },
    next() {
      if (earliestUnfinished === Number.POSITIVE_INFINITY) return end;
      const bytes = offsets.get(earliestUnfinished);
      return bytes === undefined ? null : { bytes, line: earliestUnfinished };
    },
  };
}
