// Where a PostgreSQL search looks (a table, its newest-first column, its filters) and the indexes
// bm25 weighs its words in: what the plan (search-plan.ts), the word statistics
// (search-statistics.ts) and the commonness counts (search-commonness.ts) read, so none of them
// imports another for it.

import type { SqlParameters } from './sql-parameters.ts';

/** The rows of one index: a turn type (SQLite's turns_fts, compactions_fts), or every event. */
export interface RankedKind {
  /** The turn type (`normal`, `compaction`), or '' for events. */
  kind: string;
  /** SQL true for the index's rows among the table's (alias as the search's), binding its values. */
  rows: (parameters: SqlParameters) => string[];
  /**
   * The order a large index's statistics sample is read in, along an index: the same rows every
   * time, where an unordered LIMIT gave whatever a (synchronized) sequential scan met first.
   */
  sampleOrder: string;
}

/** Where a search looks: a table and its alias, its newest-first column, and its conditions. */
export interface SearchSource {
  table: 'agent_turns' | 'events';
  alias: 't' | 'e';
  /** The column "newest" is read by, backwards along its index: timestamp or received_at. */
  age: string;
  /** The search's filters over the alias, binding their values. */
  filters: (parameters: SqlParameters) => string[];
  /**
   * The rows a word's frequency is counted over (the turn type searched): no other filter. Every
   * kind's rows are among them (search-commonness.ts reads each kind's count from the same rows).
   */
  population: (parameters: SqlParameters) => string[];
  /** The indexes bm25 weighs words in, as SQLite keeps them (turns and summaries apart; events). */
  kinds: readonly RankedKind[];
}
