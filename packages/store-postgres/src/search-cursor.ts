// The cursor of a ranked search page: where the page ended in the order (score DESC, then the older
// row first: timestamp or receivedAt, then id), carried to the next page and read back as a keyset
// condition.

import { invalidCursorError } from '@agent-ledger/core';
import type { SqlParameters } from './sql-parameters.ts';

/** Where a ranked page ends: the score, then the row's place among equal scores (older first). */
export interface KeysetPosition {
  score: number;
  /** timestamp (turns) or receivedAt (events). */
  age: number;
  id: string;
}

/** The SQL of the columns a ranked page is ordered by. */
export interface KeysetColumns {
  score: string;
  age: string;
  id: string;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify(['pg', position.score, position.age, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): KeysetPosition | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(decoded) && decoded.length === 4) {
      const [tag, score, age, id] = decoded as unknown[];
      if (
        tag === 'pg' &&
        typeof score === 'number' &&
        Number.isFinite(score) &&
        Number.isSafeInteger(age) &&
        typeof id === 'string'
      )
        return { score, age: age as number, id };
    }
  } catch {
    // refused below
  }
  throw invalidCursorError(cursor);
}

/** SQL true for rows after `after` in the order (score DESC, age, id): each bound once. */
export function afterClause(after: KeysetPosition, columns: KeysetColumns, parameters: SqlParameters): string {
  const { score, age, id } = columns;
  const at = parameters.add(after.score);
  return (
    `(${score} < ${at}::float8 OR (${score} = ${at}::float8 AND ` +
    `(${age}, ${id} COLLATE "C") > (${parameters.add(after.age)}::bigint, ${parameters.add(after.id)}::text)))`
  );
}
