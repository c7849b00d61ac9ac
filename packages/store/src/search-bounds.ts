// How much of the index one search may read, whatever the ledger's size (issue 28: search fast at a
// million turns), the same on every engine. Both numbers are rows of the full-text index a search
// reads, never a share of the ledger, so a search costs the same on a ledger of any size; a ledger
// smaller than them is searched exactly as before (docs/search.md, "Search at any size").

/**
 * A word held by more rows than this (counted up to one more, over the index or the rows of the
 * type searched, before any other filter) is common. In a query that also has a rarer word, common
 * words do not weigh in the ranking, and an any-word match leaves them out: bm25 would give them
 * little weight, and on SQLite their weight costs a walk over every row holding the word (about 25
 * ns a row: 10 ms for a word in 400,000 turns). Below 2,000 rows this changes no ranking: a word in
 * more than half the rows has bm25's floor weight anyway.
 */
export const COMMON_WORD_ROWS = 1000;

/**
 * A search ranks at most this many matching rows under its filters: when more match, the newest
 * (SQLite: the highest rowids, read from the end of each word's list; PostgreSQL: the latest
 * timestamp or receivedAt, read backwards along its index), without ranking anything. Ranking and
 * resolving a row costs a microsecond or two, so a page costs a few milliseconds however many rows
 * hold a common word.
 */
export const RANKED_ROWS = 1000;
