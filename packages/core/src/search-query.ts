// What a person typed, as the words a search looks for. User text is a query, not syntax: quotes,
// parentheses, AND/NEAR, `*`, colons and stray punctuation are separators, never operators. The
// words go to the store (SearchStore in @agent-ledger/store), which builds its engine's own query from them.

import { InvalidInputError } from './errors.ts';
import { STOPWORDS } from './words.ts';

const TERM = /[\p{L}\p{N}_]+/gu;
/** More terms than this add noise, not recall, and make a full-text query slow. */
export const MAX_SEARCH_TERMS = 32;

/** The distinct words of `text` (NFKC, lower-case), in order of first appearance, at most 32. */
export function searchTerms(text: string): string[] {
  return [...new Set((text.normalize('NFKC').match(TERM) ?? []).map((term) => term.toLowerCase()))].slice(0, MAX_SEARCH_TERMS);
}

/**
 * The words of a question that say what it is about: its search terms without the words every
 * sentence has ("which redis host does staging use" → redis, host, staging, use). All of its terms
 * when every one is such a word.
 */
export function contentTerms(text: string): string[] {
  const terms = searchTerms(text);
  const content = terms.filter((term) => !STOPWORDS.has(term));
  return content.length > 0 ? content : terms;
}

/** `query` as a search's words, after checking it is a string (what every search entry point takes). */
export function requireSearchText(query: unknown): string {
  if (typeof query !== 'string') throw new InvalidInputError('query must be a string.', 'query');
  return query;
}
