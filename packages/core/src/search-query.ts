// Turning what a person typed into an FTS5 query that cannot fail. User text is a query, not
// syntax: quotes, parentheses, AND/NEAR, `*`, colons and stray punctuation become plain terms.

import { InvalidInputError } from './errors.ts';

export interface SafeQuery {
  /** The FTS5 MATCH expression, or null when the text holds no searchable term. */
  match: string | null;
  terms: string[];
}

const TERM = /[\p{L}\p{N}_]+/gu;
/** More terms than this add noise, not recall, and make MATCH slow. */
const MAX_TERMS = 32;

/**
 * Every word of the text, each quoted so FTS5 reads it as a literal; `mode` joins them with AND
 * (every term must appear) or OR (any term; bm25 ranks the rest).
 */
export function toSafeMatch(text: string, mode: 'all' | 'any' = 'all'): SafeQuery {
  const terms = [...new Set((text.normalize('NFKC').match(TERM) ?? []).map((term) => term.toLowerCase()))].slice(0, MAX_TERMS);
  if (terms.length === 0) return { match: null, terms };
  return { match: terms.map((term) => `"${term}"`).join(mode === 'all' ? ' AND ' : ' OR '), terms };
}

export interface MatchPlan {
  /** MATCH expressions to try in order: all terms first, then any term when that finds nothing. */
  expressions: string[];
  /** True when `query` is FTS5 syntax passed through as is. */
  advanced: boolean;
  query: string;
}

export function planMatch(query: unknown, advanced = false): MatchPlan {
  if (typeof query !== 'string') throw new InvalidInputError('query must be a string.', 'query');
  if (advanced) return { expressions: query.trim() === '' ? [] : [query], advanced, query };
  const all = toSafeMatch(query, 'all');
  if (all.match === null) return { expressions: [], advanced, query };
  const any = toSafeMatch(query, 'any').match as string;
  return { expressions: all.terms.length > 1 ? [all.match, any] : [all.match], advanced, query };
}
