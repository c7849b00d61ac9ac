// Reads a file or stdin line by line without holding it: the importers stream, so a transcript of
// any size costs the memory of its longest line.

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { SourceLine } from './transcript-entry.ts';

export async function* readLines(input: NodeJS.ReadableStream | string): AsyncGenerator<SourceLine> {
  const stream = typeof input === 'string' ? createReadStream(input, { encoding: 'utf8' }) : input;
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const text of reader) {
    number += 1;
    yield { number, text };
  }
}

/** Parses a JSONL line; an error names the line and says what was wrong. */
export function parseJsonLine(line: SourceLine): { value: Record<string, unknown> } | { error: string } {
  try {
    const value = JSON.parse(line.text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'is not a JSON object' };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { error: `is not valid JSON (${(error as Error).message})` };
  }
}
