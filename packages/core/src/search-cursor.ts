// Keyset cursors for ranked search pages: the (score, rowid) of the last row a page consumed. The
// next page starts strictly after it, so pages neither repeat nor skip while the index is
// unchanged. A resolved search also carries the compactions it already reported, since one
// compaction stands in for matches all down the ranking.

import { InvalidInputError } from './errors.ts';

export interface SearchPosition {
  score: number;
  rowid: number;
  /** Canonical ids already reported on earlier pages (resolved views only). */
  seen?: string[];
}

export function encodeCursor(position: SearchPosition): string {
  const value: unknown[] = [position.score, position.rowid];
  if (position.seen && position.seen.length > 0) value.push(position.seen);
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): SearchPosition | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const [score, rowid, seen] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const seenIds = seen === undefined ? [] : seen;
    if (
      typeof score === 'number' &&
      Number.isFinite(score) &&
      Number.isSafeInteger(rowid) &&
      Array.isArray(seenIds) &&
      seenIds.every((id) => typeof id === 'string')
    ) {
      return { score, rowid: rowid as number, ...(seenIds.length > 0 ? { seen: seenIds as string[] } : {}) };
    }
  } catch {
    // fall through to the error below
  }
  throw new InvalidInputError(
    `"${cursor}" is not a cursor this search returned; pass nextCursor from the previous page.`,
    'cursor',
  );
}
