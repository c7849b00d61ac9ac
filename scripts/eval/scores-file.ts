// Every question's scores as JSON Lines (`--scores FILE`), appended as each conversation finishes:
// a run cut short keeps what it measured, and `--diff a,b --from FILE` reads a finished run back
// without measuring again. Lines with a `kind` (the full-context reference, the rankings) came with
// issue 30; the strategies' lines have none, as before, and files written before read the same.

import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import type { DiffedScore } from './diff.ts';
import { DataError } from './load-data.ts';

/** Starts (or empties) the file. */
export function startScoresFile(path: string): void {
  writeFileSync(path, '');
}

/** Appends one line per item: a strategy's scored question, a reference score or a ranking. */
export function appendScores(path: string, lines: readonly object[]): void {
  if (lines.length === 0) return;
  appendFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
}

/**
 * The strategies' scored questions of a --scores file (lines with a `kind` left out). Lines written
 * before issue 30 lack containment, tokens and budgetShare: the type names only what the diff reads.
 */
export function readScores(path: string): DiffedScore[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DataError(`${path}: cannot be read (${(error as Error).message}).`);
  }
  const scores: DiffedScore[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: DiffedScore & { kind?: unknown };
    try {
      value = JSON.parse(line) as DiffedScore & { kind?: unknown };
      if (value.kind !== undefined) continue;
      if (typeof value.strategy !== 'string' || typeof value.questionId !== 'string') throw new Error('not a scored question');
    } catch (error) {
      throw new DataError(`${path}:${index + 1}: not a line written by --scores (${(error as Error).message}).`);
    }
    scores.push(value);
  }
  return scores;
}
