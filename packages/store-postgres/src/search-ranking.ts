// How search hits are scored on PostgreSQL: a query of words by bm25 exactly as SQLite's FTS5
// computes it (@agent-ledger/store search-bm25.ts; the statistics in search-statistics.ts), so both
// engines rank a search alike; advanced syntax, which has no words to weigh, by ts_rank_cd.

import { BM25_B, BM25_K1 } from '@agent-ledger/store';
import { SEARCH_CONFIGURATION } from './schema.ts';
import type { WordWeight } from './search-statistics.ts';
import type { SqlParameters } from './sql-parameters.ts';

/**
 * The score of advanced syntax: cover density (how many matches, how close together), divided by
 * 1 + log2 of the document's length (normalization 1). float8: the exact value a cursor carries back.
 */
export const RANK = (vector: string, tsquery: string) => `ts_rank_cd(${vector}, ${tsquery}, 1)::float8`;

/** ts_rank_cd with every weight 1: a word's cover density is then its count in the row. */
const UNIT = "'{1,1,1,1}'::float4[]";

/**
 * The `weights` WITH clause: each word's tsquery, index (`kind`), place in the query, idf and the
 * index's average length, bound as arrays.
 */
export function weightsClause(weights: readonly WordWeight[], parameters: SqlParameters): string {
  const columns: Array<[unknown[], string]> = [
    [weights.map((weight) => weight.kind), 'text'],
    [weights.map((weight) => weight.position), 'int'],
    [weights.map((weight) => weight.word), 'text'],
    [weights.map((weight) => weight.idf), 'float8'],
    [weights.map((weight) => weight.averageLength), 'float8'],
  ];
  const arrays = columns.map(([values, type]) => `${parameters.add(values)}::${type}[]`).join(', ');
  return (
    `weights AS MATERIALIZED (SELECT w.kind, w.position, phraseto_tsquery('${SEARCH_CONFIGURATION}'::regconfig, w.word) AS q, w.idf, w.average ` +
    `FROM unnest(${arrays}) AS w (kind, position, word, idf, average))`
  );
}

/**
 * A row's bm25 over the `weights` of its index (`kind`: SQL naming it), as FTS5 sums it: for each
 * word the row holds, idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × length / average length)). tf
 * is the word's count in the row (a word the parser splits, as a phrase: its occurrences side by
 * side) and the length its count of positions, both read by ts_rank_cd from the tsvector (length:
 * the rank over the rank divided by the length), so no row is unnested. Summed in the words'
 * order, so a page's cursor meets the same float on the next page.
 */
export function bm25Score(vector: string, kind: string): string {
  // tf and the rank normalized by length read once per word and row: each is a ts_rank_cd over the
  // row's vector, the most of what ranking a row costs, and the formula uses tf three times. OFFSET 0
  // keeps the planner from pulling the LATERAL subquery up, which would copy each call where it is used.
  // The CASE tests the index first: the planner would match the vector against every kind's words.
  const read =
    `SELECT ts_rank_cd(${UNIT}, ${vector}, g.q, 0)::float8 AS tf, ` +
    `ts_rank_cd(${UNIT}, ${vector}, g.q, 2)::float8 AS normalized OFFSET 0`;
  const length = 'round(r.tf / nullif(r.normalized, 0))';
  const norm = `(${1 - BM25_B} + ${BM25_B} * ${length} / nullif(g.average, 0))`;
  return (
    `(SELECT coalesce(sum(g.idf * r.tf * ${BM25_K1 + 1} / (r.tf + ${BM25_K1} * coalesce(${norm}, 1)) ORDER BY g.position), 0) ` +
    `FROM weights g CROSS JOIN LATERAL (${read}) r WHERE CASE WHEN g.kind = ${kind} THEN ${vector} @@ g.q ELSE false END)::float8`
  );
}

/** What `scoredTurns` selects: the hits' columns and rows, and the scored rows' columns. */
export interface ScoredTurnsSelect {
  hitColumns: string;
  columns: string;
  from: string;
  where: readonly string[];
}

/** What ranks the hits: the words' weights (none: advanced syntax), else the rank tsquery. */
export interface TurnRanking {
  weights: readonly WordWeight[] | null;
  /** The rank tsquery's SQL (binding its values when called: only a ranking by RANK uses it). */
  tsquery: () => string;
}

/**
 * `hits` (`hitColumns` and `search_vector` of the rows `from` and `where` give) and `scored`
 * (`columns` of hits, and a `score`, higher is better) as WITH clauses: a query of words by bm25
 * over each row's own index (turns and compaction summaries apart, as SQLite's two indexes keep
 * them), advanced syntax by RANK.
 */
export function scoredTurns(ranking: TurnRanking, select: ScoredTurnsSelect, parameters: SqlParameters): string {
  const weights = ranking.weights;
  if (!weights || weights.length === 0) {
    const hits = `hits AS (SELECT ${select.hitColumns}, t.search_vector ${select.from} WHERE ${select.where.join(' AND ')})`;
    return `${hits}, scored AS (SELECT ${select.columns}, ${RANK('h.search_vector', ranking.tsquery())} AS score FROM hits h)`;
  }
  const clause = weightsClause(weights, parameters);
  const hits = `hits AS (SELECT ${select.hitColumns}, t.search_vector ${select.from} WHERE ${select.where.join(' AND ')})`;
  return `${clause}, ${hits}, scored AS (SELECT ${select.columns}, ${bm25Score('h.search_vector', 'h.turn_type')} AS score FROM hits h)`;
}
