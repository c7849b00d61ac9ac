// Incremental TF-IDF over the turns that graduate into the forest. Local, no model call: the
// vocabulary and document frequencies grow one document at a time.
//
// IDF policy (docs/compaction.md): a document's vector is weighted with the statistics as they
// stand when it is added, itself included, and the weights are then frozen. Centroids are averages
// of frozen vectors, so nothing is re-vectorized as the vocabulary grows; a word that later becomes
// common keeps the weight it had when it was rare in the vectors made before. The smoothed form
// idf(t) = ln((1 + N) / (1 + df(t))) + 1 is never zero or negative, so a word present in every
// document still counts a little and the first document's vector is not empty.

import { STOPWORDS, WORD_PATTERN } from '@agent-ledger/core';

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

/** A term's document frequency, and whether it changed since the last takeChangedTerms. */
interface TermRecord {
  term: string;
  frequency: number;
  changed: boolean;
  /** The document being added when this term was last counted, and its count in it. */
  lastDocument: number;
  count: number;
}

export class TfIdfModel {
  private documentCount: number;
  /** One record per term: a graduation costs one lookup per term for counting, marking and weighing. */
  private readonly terms: Map<string, TermRecord>;
  /** Terms whose frequency changed since the last `takeChangedTerms` (for incremental persistence). */
  private changedTerms: string[] = [];

  constructor(state: TfIdfState = { documentCount: 0, documentFrequency: {} }) {
    this.documentCount = state.documentCount;
    this.terms = new Map(
      Object.entries(state.documentFrequency).map(([term, frequency]) => [
        term,
        { term, frequency, changed: false, lastDocument: -1, count: 0 },
      ]),
    );
  }

  get documents(): number {
    return this.documentCount;
  }

  /**
   * Counts `text` as a document, then returns its unit-length TF-IDF vector. One lookup per word:
   * the term's record counts it in this document too (the same figures as termCounts then weigh).
   */
  addDocument(text: string): Map<string, number> {
    this.documentCount += 1;
    const document = this.documentCount;
    const records: TermRecord[] = [];
    for (const term of topicTerms(text)) {
      let record = this.terms.get(term);
      if (!record) {
        record = { term, frequency: 0, changed: false, lastDocument: -1, count: 0 };
        this.terms.set(term, record);
      }
      if (record.lastDocument === document) record.count += 1;
      else {
        record.lastDocument = document;
        record.count = 1;
        records.push(record);
      }
    }
    // Terms in the order they first appear (a Map of counts' order), each counted once per document.
    const weights = new Array<number>(records.length);
    let sum = 0;
    for (let index = 0; index < records.length; index += 1) {
      const record = records[index] as TermRecord;
      record.frequency += 1;
      if (!record.changed) {
        record.changed = true;
        this.changedTerms.push(record.term);
      }
    }
    for (let index = 0; index < records.length; index += 1) {
      const record = records[index] as TermRecord;
      // Sublinear term frequency, as weigh().
      const weight = (1 + Math.log(record.count)) * this.idfOf(record.frequency);
      weights[index] = weight;
      sum += weight * weight;
    }
    const norm = Math.sqrt(sum);
    const vector = new Map<string, number>();
    if (norm === 0) return vector;
    for (let index = 0; index < records.length; index += 1) {
      vector.set((records[index] as TermRecord).term, (weights[index] as number) / norm);
    }
    return vector;
  }

  /** The vector of `text` under the current statistics, without counting it (for queries). */
  vectorize(text: string): Map<string, number> {
    const counts = termCounts(text);
    const terms = [...counts.keys()];
    let index = 0;
    return this.weigh(counts, () => this.terms.get(terms[index++] as string)?.frequency ?? 0);
  }

  idf(term: string): number {
    return this.idfOf(this.terms.get(term)?.frequency ?? 0);
  }

  state(): TfIdfState {
    return {
      documentCount: this.documentCount,
      documentFrequency: Object.fromEntries([...this.terms].map(([term, record]) => [term, record.frequency])),
    };
  }

  /** The current frequencies of the terms changed since the last call; clears the record. */
  takeChangedTerms(): Record<string, number> {
    // fromEntries defines own properties: assigning changed['__proto__'] would set a prototype instead.
    const changed = Object.fromEntries(
      this.changedTerms.sort().map((term) => {
        const record = this.terms.get(term) as TermRecord;
        record.changed = false;
        return [term, record.frequency];
      }),
    );
    this.changedTerms = [];
    return changed;
  }

  private idfOf(frequency: number): number {
    return Math.log((1 + this.documentCount) / (1 + frequency)) + 1;
  }

  /** `frequencyOfNext` gives the document frequency of each term of `counts`, in its order. */
  private weigh(counts: Map<string, number>, frequencyOfNext: () => number): Map<string, number> {
    // Sublinear term frequency: a word said ten times is not ten times the topic. Weighed in place
    // (counts is this call's own map), then scaled to length 1 as normalize() does.
    let sum = 0;
    for (const [term, count] of counts) {
      const weight = (1 + Math.log(count)) * this.idfOf(frequencyOfNext());
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
