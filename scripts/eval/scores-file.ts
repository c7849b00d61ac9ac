// Every question's scores as JSON Lines (`--scores FILE`), appended as each conversation finishes:
// a run cut short keeps what it measured, and `--diff a,b --from FILE` reads a finished run back
// without measuring again.

import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import type { ScoredQuestion } from './aggregate.ts';
import { DataError } from './load-data.ts';

/** Starts (or empties) the file. */
export function startScoresFile(path: string): void {
  writeFileSync(path, '');
}

export function appendScores(path: string, scores: readonly ScoredQuestion[]): void {
  if (scores.length === 0) return;
  appendFileSync(path, `${scores.map((score) => JSON.stringify(score)).join('\n')}\n`);
}

export function readScores(path: string): ScoredQuestion[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DataError(`${path}: cannot be read (${(error as Error).message}).`);
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        const value = JSON.parse(line) as ScoredQuestion;
        if (typeof value.strategy !== 'string' || typeof value.questionId !== 'string') throw new Error('not a scored question');
        return value;
      } catch (error) {
        throw new DataError(`${path}:${index + 1}: not a line written by --scores (${(error as Error).message}).`);
      }
    });
}
