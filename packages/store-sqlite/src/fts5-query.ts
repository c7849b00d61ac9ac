// SearchStore's engine-neutral inputs as SQLite FTS5: MATCH expressions (and which one a search
// uses, with the words that rank it), keyset cursors over (bm25, rowid), and what an FTS5 error in
// an advanced query means.

import { invalidCursorError, SearchSyntaxError } from '@agent-ledger/core';
import type { SearchMatch } from '@agent-ledger/store';

/**
 * Each word quoted, so FTS5 reads it as a literal (a `"` inside doubled; NUL, which ends FTS5's
 * string early, as a space), joined by AND (every word) or OR (any word). Null when there is no word.
 */
function wordsExpression(words: readonly string[], mode: 'all' | 'any'): string | null {
  if (words.length === 0) return null;
  return words.map((word) => `"${word.replaceAll('"', '""').replaceAll('\0', ' ')}"`).join(mode === 'all' ? ' AND ' : ' OR ');
}

/**
 * The MATCH expressions to try, in order: the last is used when the ones before find nothing under
 * the filters (`all-then-any` with several words: every word, then any word). Empty: no match.
 */
export function matchExpressions(match: SearchMatch): string[] {
  if ('advanced' in match) return match.advanced.trim() === '' ? [] : [match.advanced];
  const all = wordsExpression(match.words, 'all');
  const any = wordsExpression(match.words, 'any');
  if (all === null || any === null) return [];
  if (match.mode === 'all') return [all];
  if (match.mode === 'any') return [any];
  return match.words.length > 1 ? [all, any] : [all];
}

/**
 * What a search matches, and the expression bm25 ranks the matches by. They differ when common words
 * only filter: `"okapi" AND "the"` matches, `"okapi"` ranks (@agent-ledger/store search-bounds.ts).
 */
export interface SearchExpression {
  match: string;
  rank: string;
}

/** The words that rank a search: those not `common`, or every word when all are. */
function rankingWords(words: readonly string[], common: ReadonlySet<string>): readonly string[] {
  const ranking = words.filter((word) => !common.has(word));
  return ranking.length > 0 ? ranking : words;
}

/** Every word must match; the words not `common` rank (@agent-ledger/store search-bounds.ts). */
export function everyWordExpression(words: readonly string[], common: ReadonlySet<string>): SearchExpression {
  return { match: wordsExpression(words, 'all') ?? '', rank: wordsExpression(rankingWords(words, common), 'all') ?? '' };
}

/** Any word not `common` matches and ranks, so a common word cannot flood the search (@agent-ledger/store search-bounds.ts). */
export function anyWordExpression(words: readonly string[], common: ReadonlySet<string>): SearchExpression {
  const any = wordsExpression(rankingWords(words, common), 'any') ?? '';
  return { match: any, rank: any };
}

/** A word as an FTS5 literal, the way every expression above quotes it. */
export function wordLiteral(word: string): string {
  return wordsExpression([word], 'all') ?? '""';
}

/** Where a ranked page ends: FTS5's bm25 (lower is better) and the row's rowid. */
export interface KeysetPosition {
  score: number;
  rowid: number;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.score, position.rowid])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): KeysetPosition | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const [score, rowid] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof score === 'number' && Number.isFinite(score) && Number.isSafeInteger(rowid))
      return { score, rowid: rowid as number };
  } catch {
    // refused below
  }
  throw invalidCursorError(cursor);
}

/** Runs a search; for an advanced query an error from SQLite is the query's fault (SearchSyntaxError). */
export function withSearchErrors<T>(match: SearchMatch, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if ('advanced' in match && error instanceof Error && error.name === 'SqliteError')
      throw new SearchSyntaxError(match.advanced, error.message);
    throw error;
  }
}
