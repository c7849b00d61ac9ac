// Reads a file or stdin line by line without holding it: the importers stream, so a transcript of
// any size costs the memory of its longest line. Each line says whether a newline ended it (the
// last line of a transcript that is still being written may be cut short, and only that line can
// lack its newline) and where it starts and ends in the file, in bytes, so an import can record
// where the next one resumes (resume-position.ts).

import { createReadStream } from 'node:fs';
import { toStorableText } from '@agent-ledger/core';
import type { SourceLine } from './transcript-entry.ts';

export interface ReadFrom {
  /** Byte offset of a line start to read from. */
  bytes: number;
  /** The number of the line at that offset. */
  line: number;
}

/** The lines of `input` (a path or a stream), from the start or from `from`. */
export async function* readLines(input: NodeJS.ReadableStream | string, from?: ReadFrom): AsyncGenerator<SourceLine> {
  // A start only when resuming: a path may name a pipe (`/dev/stdin`, `<(zcat …)`), which cannot seek.
  const stream =
    typeof input === 'string' ? createReadStream(input, { encoding: 'utf8', ...(from ? { start: from.bytes } : {}) }) : input;
  if (typeof input !== 'string' && 'setEncoding' in stream) (stream as NodeJS.ReadableStream).setEncoding('utf8');
  let number = (from?.line ?? 1) - 1;
  let offset = from?.bytes ?? 0;
  let rest = '';
  for await (const chunk of stream) {
    rest += typeof chunk === 'string' ? chunk : String(chunk);
    let newline = rest.indexOf('\n');
    while (newline >= 0) {
      const raw = rest.slice(0, newline);
      const end = offset + Buffer.byteLength(raw) + 1;
      number += 1;
      yield { number, text: withoutCarriageReturn(raw), terminated: true, offset, end };
      offset = end;
      rest = rest.slice(newline + 1);
      newline = rest.indexOf('\n');
    }
  }
  if (rest !== '')
    yield {
      number: number + 1,
      text: withoutCarriageReturn(rest),
      terminated: false,
      offset,
      end: offset + Buffer.byteLength(rest),
    };
}

function withoutCarriageReturn(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

/** A last line with no newline that is not (yet) any whole JSON value. */
export function isUnfinished(line: SourceLine): boolean {
  if (line.terminated !== false || line.text.trim() === '') return false;
  try {
    JSON.parse(line.text);
    return false;
  } catch {
    return true;
  }
}

/**
 * The lines of a JSONL transcript the importer should read now: all of them but a last line with
 * no newline that is not yet a whole JSON value, which the tool writing the file has not finished.
 * That line is left for the next import (`onUnfinished` is told its number), never reported as
 * malformed.
 */
export async function* finishedLines(
  lines: AsyncIterable<SourceLine>,
  onUnfinished: (line: number) => void,
): AsyncGenerator<SourceLine> {
  for await (const line of lines) {
    if (isUnfinished(line)) {
      onUnfinished(line.number);
      continue;
    }
    yield line;
  }
}

/** `\u` escapes of a surrogate or of NUL, or a raw NUL: the only ways a parsed line can hold text the ledger refuses. */
const MAYBE_UNSTORABLE = /\\u(?:d[89a-f][0-9a-f]{2}|0000)|\0/i;

/** Every string of a parsed value made storable (core's toStorableText), keys included. */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return toStorableText(value);
  if (Array.isArray(value)) return value.map(storable);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [toStorableText(key), storable(item)]));
  return value;
}

/** JSON.parse, then every string made storable when the text may hold one the ledger refuses. */
export function parseStorableJson(text: string): unknown {
  const parsed = JSON.parse(text) as unknown;
  return MAYBE_UNSTORABLE.test(text) ? storable(parsed) : parsed;
}

/**
 * Parses a JSONL line; an error names the line and says what was wrong. Half an emoji (a lone
 * surrogate, left by a tool that cut a string by length) or a NUL in a transcript becomes U+FFFD
 * or nothing, so the line imports: the ledger stores only text it can hash as stored.
 */
export function parseJsonLine(line: SourceLine): { value: Record<string, unknown> } | { error: string } {
  try {
    const value = parseStorableJson(line.text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'is not a JSON object' };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { error: `is not valid JSON (${(error as Error).message})` };
  }
}
