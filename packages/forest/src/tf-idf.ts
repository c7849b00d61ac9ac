// Incremental TF-IDF over the turns that graduate into the forest. Local, no model call: the
// vocabulary and document frequencies grow one document at a time.
//
// IDF policy (docs/compaction.md): a document's vector is weighted with the statistics as they
// stand when it is added, itself included, and the weights are then frozen. Centroids are averages
// of frozen vectors, so nothing is re-vectorized as the vocabulary grows; a word that later becomes
// common keeps the weight it had when it was rare in the vectors made before. The smoothed form
// idf(t) = ln((1 + N) / (1 + df(t))) + 1 is never zero or negative, so a word present in every
// document still counts a little and the first document's vector is not empty.

import { STOPWORDS, WORD_PATTERN } from '@nexus/core';

export interface TfIdfState {
  documentCount: number;
  /** term → number of documents containing it. */
  documentFrequency: Record<string, number>;
}

/** Lower-cased words that carry a topic: stopwords, one-letter words and bare punctuation go. */
export function topicTerms(text: string): string[] {
  const terms: string[] = [];
  // A curly apostrophe is the same word as a straight one (don’t is don't, a stopword).
  // match() with the global pattern: every word as a string, without a match object per word.
  for (const term of text.toLowerCase().replace(/’/g, "'").match(WORD_PATTERN) ?? []) {
    if (term.length < 2 || STOPWORDS.has(term)) continue;
    terms.push(term);
  }
  return terms;
}

/**
 * The distinct terms of a query: the only document frequencies its vector needs, so a reader can
 * fetch just those and build the same vector with a TfIdfModel holding only them.
 */
export function queryTerms(text: string): string[] {
  return [...new Set(topicTerms(text))];
}

export class TfIdfModel {
  private documentCount: number;
  private readonly documentFrequency: Map<string, number>;
  /** Terms whose frequency changed since the last `takeChangedTerms` (for incremental persistence). */
  private readonly changedTerms = new Set<string>();

  constructor(state: TfIdfState = { documentCount: 0, documentFrequency: {} }) {
    this.documentCount = state.documentCount;
    this.documentFrequency = new Map(Object.entries(state.documentFrequency));
  }

  get documents(): number {
    return this.documentCount;
  }

  /** Counts `text` as a document, then returns its unit-length TF-IDF vector. */
  addDocument(text: string): Map<string, number> {
    const counts = termCounts(text);
    this.documentCount += 1;
    for (const term of counts.keys()) {
      this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      this.changedTerms.add(term);
    }
    return this.weigh(counts);
  }

  /** The vector of `text` under the current statistics, without counting it (for queries). */
  vectorize(text: string): Map<string, number> {
    return this.weigh(termCounts(text));
  }

  idf(term: string): number {
    return Math.log((1 + this.documentCount) / (1 + (this.documentFrequency.get(term) ?? 0))) + 1;
  }

  state(): TfIdfState {
    return { documentCount: this.documentCount, documentFrequency: Object.fromEntries(this.documentFrequency) };
  }

  /** The current frequencies of the terms changed since the last call; clears the record. */
  takeChangedTerms(): Record<string, number> {
    // fromEntries defines own properties: assigning changed['__proto__'] would set a prototype instead.
    const changed = Object.fromEntries(
      [...this.changedTerms].sort().map((term) => [term, this.documentFrequency.get(term) ?? 0]),
    );
    this.changedTerms.clear();
    return changed;
  }

  private weigh(counts: Map<string, number>): Map<string, number> {
    // Sublinear term frequency: a word said ten times is not ten times the topic. Weighed in place
    // (counts is this call's own map), then scaled to length 1 as normalize() does.
    let sum = 0;
    for (const [term, count] of counts) {
      const weight = (1 + Math.log(count)) * this.idf(term);
      counts.set(term, weight);
      sum += weight * weight;
    }
    const norm = Math.sqrt(sum);
    if (norm === 0) return new Map();
    for (const [term, weight] of counts) counts.set(term, weight / norm);
    return counts;
  }
}

function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of topicTerms(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}
