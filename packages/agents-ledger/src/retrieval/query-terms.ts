// The words a query is searched by, and the words pseudo-relevance feedback adds: pure functions
// over text. Stopwords are left out (a question's "did", "what", "with" match every other turn and
// only dilute bm25); a query made of stopwords alone keeps them.

import { STOPWORDS, WORD_PATTERN } from '@agent-ledger/core';

/** Most terms one search is given; a pasted page would otherwise make a huge query. */
const MAX_TERMS = 32;

/** The distinct lower-case words of `text` worth searching by, in order of first appearance. */
export function queryTerms(text: string): string[] {
  const words = [...new Set((text.normalize('NFKC').match(WORD_PATTERN) ?? []).map((word) => word.toLowerCase()))];
  const content = words.filter((word) => !STOPWORDS.has(word) && !/^\p{N}{1,2}$/u.test(word));
  return (content.length > 0 ? content : words).slice(0, MAX_TERMS);
}

export interface FeedbackInput {
  /** The texts of the best first matches. */
  texts: readonly string[];
  /** Terms already searched by: never added again. */
  queryTerms: readonly string[];
  /** How many terms to add. */
  count: number;
  /** Turns holding a term (document frequency), and turns in all. */
  turnsHolding: (term: string) => Promise<number>;
  totalTurns: number;
}

/**
 * Pseudo-relevance feedback: the terms the first matches share that the query lacks, by term
 * frequency in those matches times inverse document frequency. A multi-hop question names one
 * fact; the turns holding it name the thing the next fact is about.
 */
export async function feedbackTerms(input: FeedbackInput): Promise<string[]> {
  if (input.count <= 0) return [];
  const known = new Set(input.queryTerms);
  const frequency = new Map<string, number>();
  for (const text of input.texts) {
    for (const term of new Set(queryTerms(text))) {
      if (known.has(term) || term.length < 3 || /^\p{N}+$/u.test(term)) continue;
      frequency.set(term, (frequency.get(term) ?? 0) + 1);
    }
  }
  const weighted: Array<{ term: string; weight: number }> = [];
  for (const [term, count] of frequency) {
    const holding = Math.max(1, await input.turnsHolding(term));
    weighted.push({ term, weight: count * Math.log(1 + input.totalTurns / holding) });
  }
  weighted.sort((left, right) => right.weight - left.weight || (left.term < right.term ? -1 : 1));
  return weighted.slice(0, input.count).map((entry) => entry.term);
}
