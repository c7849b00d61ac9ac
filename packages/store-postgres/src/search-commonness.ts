// Which of a PostgreSQL search's words are common (held by more than COMMON_WORD_ROWS rows of the
// type searched: @agent-ledger/store search-bounds.ts), as WITH clauses of the statistics
// statement (search-statistics.ts), so that a search learns its common words and its words' bm25
// statistics in one round trip. The count of a word also tells how many of the rows it read each
// index holds: a rare word's count in each index is read from it instead of being counted again.
// A word the store already knows common (search-known-common.ts) is not counted: its row is constants.

import { COMMON_WORD_ROWS } from '@agent-ledger/store';
import type { SearchSource } from './search-source.ts';
import type { SqlParameters } from './sql-parameters.ts';

/** How the population clauses bind their values, and which words (by place) are known common already. */
export interface PopulationOptions {
  parameters: SqlParameters;
  /** True for a word known held by more than COMMON_WORD_ROWS rows of the population (knownCommonRow). */
  knownCommon: (word: number) => boolean;
}

/** The one-row WITH clause the statement's other clauses join (as `p`) to read the counts. */
export const WORD_COUNTS = 'word_counts';

/**
 * The `population` and `word_counts` WITH clauses. `population` counts each word (its place in
 * `tsqueries`) over the source's population, stopping one row past COMMON_WORD_ROWS, and how many
 * of the rows read each kind holds. `word_counts` is one row of arrays in the words' order (1-based):
 * `common` (more than COMMON_WORD_ROWS rows hold the word, or it has no lexeme: it matches nothing
 * and weighs nothing, so it never ranks), `all_common`, `n` (the rows read) and `k0`, `k1`, … per
 * kind. A kind's rows are among the population's (the turn type searched, or both types), so while
 * `n` is at most COMMON_WORD_ROWS, `k` is the word's exact count in that kind. A word known common
 * is read from no table (knownCommonRow).
 */
export function populationClauses(
  source: SearchSource,
  tsqueries: readonly string[],
  { parameters, knownCommon }: PopulationOptions,
): string {
  const { table, alias } = source;
  const population = source.population(parameters);
  const flags = source.kinds.map((kind, at) => {
    const rows = kind.rows(parameters);
    return `${rows.length > 0 ? rows.join(' AND ') : 'true'} AS k${at}`;
  });
  const kindCounts = source.kinds.map((_, at) => `count(*) FILTER (WHERE w.k${at})::float8 AS k${at}`);
  const counts = tsqueries.map((tsquery, word) => {
    if (knownCommon(word)) return knownCommonRow(word, source.kinds.length);
    // numnode(…) > 0 has no column: PostgreSQL checks it once, before reading any row.
    const where = [`numnode(${tsquery}) > 0`, `${alias}.search_vector @@ ${tsquery}`, ...population];
    return (
      `SELECT ${word} AS word, numnode(${tsquery}) = 0 OR count(*) > ${COMMON_WORD_ROWS} AS common, count(*)::float8 AS n, ` +
      `${kindCounts.join(', ')} FROM (SELECT ${flags.join(', ')} FROM ${table} ${alias} WHERE ${where.join(' AND ')} ` +
      `LIMIT ${COMMON_WORD_ROWS + 1}) w`
    );
  });
  const kindArrays = source.kinds.map((_, at) => `, array_agg(k${at} ORDER BY word) AS k${at}`).join('');
  return (
    `population AS MATERIALIZED (${counts.join(' UNION ALL ')}), ${WORD_COUNTS} AS MATERIALIZED (SELECT ` +
    `array_agg(common ORDER BY word) AS common, bool_and(common) AS all_common, array_agg(n ORDER BY word) AS n${kindArrays} ` +
    'FROM population)'
  );
}

/**
 * The population row of a word known common (search-known-common.ts), read from no table: common,
 * COMMON_WORD_ROWS + 1 rows read (as its count would stop), and no per-kind counts, so that
 * countFromPopulation counts a kind itself (exactly what it does for a common word whose rows read
 * were not all of one kind) where the word ranks.
 */
function knownCommonRow(word: number, kinds: number): string {
  const kindCounts = Array.from({ length: kinds }, (_, at) => `, NULL::float8 AS k${at}`).join('');
  return `SELECT ${word} AS word, true AS common, ${COMMON_WORD_ROWS + 1}::float8 AS n${kindCounts}`;
}

/** SQL true when the word at `word` ranks: it is not common, or every word is (search-tsquery.ts rankingWords). */
export const wordRanks = (word: number) => `(NOT p.common[${word + 1}] OR p.all_common)`;

/**
 * The count of the word at `word` in kind `at` as the statistics need it (search-statistics.ts), or
 * SQL `ownCount` when the population's count cannot tell: -1 when the word does not rank (its
 * weight is never read), its kind's count when every row holding it was read or that kind alone
 * holds more than COMMON_WORD_ROWS.
 */
export function countFromPopulation(word: number, at: number, ownCount: string): string {
  const [n, k] = [`p.n[${word + 1}]`, `p.k${at}[${word + 1}]`];
  return (
    `CASE WHEN NOT ${wordRanks(word)} THEN -1 WHEN ${n} <= ${COMMON_WORD_ROWS} OR ${k} > ${COMMON_WORD_ROWS} ` +
    `THEN ${k} ELSE ${ownCount} END`
  );
}

/**
 * The population's columns of the statistics statement's row of kind `at`: each word's commonness,
 * the rows its count read and how many of them kind `at` holds, in the words' order (the last two
 * teach search-known-common.ts).
 */
export const populationColumns = (at: number) => `p.common AS common, p.n AS "populationRows", p.k${at} AS "kindRows"`;
