// Keyset cursors for ranked search pages: the (score, rowid) of the last hit of a page. The next
// page starts strictly after it, so pages neither repeat nor skip while the index is unchanged.

import { InvalidInputError } from './errors.ts';

export interface SearchPosition {
  score: number;
  rowid: number;
}

export function encodeCursor(position: SearchPosition): string {
  return Buffer.from(JSON.stringify([position.score, position.rowid])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): SearchPosition | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const [score, rowid] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof score === 'number' && Number.isFinite(score) && Number.isSafeInteger(rowid))
      return { score, rowid: rowid as number };
  } catch {
    // fall through to the error below
  }
  throw new InvalidInputError(
    `"${cursor}" is not a cursor this search returned; pass nextCursor from the previous page.`,
    'cursor',
  );
}
