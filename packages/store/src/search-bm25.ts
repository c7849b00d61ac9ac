// bm25 as SQLite's FTS5 computes it (fts5_aux.c, fts5Bm25Function), so that an engine without
// FTS5 ranks a search the way SQLite does. SQLite calls FTS5's own bm25(); PostgreSQL computes the
// same sum over its tsvectors (store-postgres search-ranking.ts) with the idf this module gives it.

/** FTS5's term-frequency saturation (k1) and length normalization (b). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** FTS5's floor: a word in more than half the rows weighs this, not a negative or zero amount. */
const IDF_FLOOR = 1e-6;

/**
 * The inverse document frequency of a word `holding` of `rows` rows hold: ln((N − n + 0.5) /
 * (n + 0.5)), at least 1e-6 (FTS5's floor).
 */
export function bm25Idf(rows: number, holding: number): number {
  const idf = Math.log((rows - holding + 0.5) / (holding + 0.5));
  return idf > 0 ? idf : IDF_FLOOR;
}

/**
 * One word's share of a row's bm25: `idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × length /
 * averageLength))`. A row's score is the sum over the query's words (higher is better; FTS5's
 * bm25() returns it negated).
 */
export function bm25Term({
  idf,
  frequency,
  length,
  averageLength,
}: {
  idf: number;
  frequency: number;
  length: number;
  averageLength: number;
}): number {
  if (frequency <= 0) return 0;
  const norm = 1 - BM25_B + (BM25_B * length) / (averageLength > 0 ? averageLength : 1);
  return (idf * frequency * (BM25_K1 + 1)) / (frequency + BM25_K1 * norm);
}
