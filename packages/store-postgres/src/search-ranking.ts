// How search hits are scored: ts_rank_cd normalized by length (higher is better), and for turns
// searched by several words, each word's rank weighted by its rarity as bm25 weighs it.

import type { SqlParameters } from './sql-parameters.ts';

/**
 * The score: cover density (how many matches, how close together), divided by 1 + log2 of the
 * document's length (normalization 1), so a word said once in a short turn outranks it said once in
 * a long one, as bm25 would rank them. float8: the exact value a cursor carries back.
 */
export const RANK = (vector: string, tsquery: string) => `ts_rank_cd(${vector}, ${tsquery}, 1)::float8`;

/** What `scoredTurns` selects: the hits' columns and rows, and the scored rows' columns. */
export interface ScoredTurnsSelect {
  hitColumns: string;
  columns: string;
  from: string;
  where: readonly string[];
  filters: readonly string[];
}

/** What ranks the hits: the words weighed (none: advanced syntax), their tsquery, and among which rows. */
export interface TurnRanking {
  words?: readonly string[];
  /** The rank tsquery's SQL (binding its values when called: only a ranking by one query uses it). */
  tsquery: () => string;
  /** Weigh the words among the hits (any-word, a bounded search, every word common), not the filtered turns. */
  weighAmongHits: boolean;
}

/**
 * `hits` (`hitColumns` and `search_vector` of the rows `from` and `where` give) and `scored`
 * (`columns` of hits, and a `score`, higher is better) as WITH clauses. Advanced syntax is ranked by RANK. A query of words
 * is ranked as bm25 weighs them, by rarity: each word's RANK times its inverse document frequency,
 * bm25's `ln(1 + (n − holding + 0.5) / (holding + 0.5))`, summed. The frequencies are counted over
 * the turns under the same filters that hold any of the words (on recall's line: that
 * conversation), turns and compaction summaries apart as SQLite's two indexes keep them, so
 * summaries repeating a word never make it common for the turns; among the hits themselves when
 * `weighAmongHits` (then the count is bounded as the hits are: @agent-ledger/store search-bounds.ts). ts_rank_cd alone
 * weighs every word alike, so in a conversation the speakers' names, in most turns and in most
 * questions, counted as much as the rare word that finds the answer (LoCoMo conv-41, recall at
 * 1,000 tokens: 58.2% of the evidence on PostgreSQL against 75.0% on SQLite; 75.6% with the weights).
 */
export function scoredTurns(ranking: TurnRanking, select: ScoredTurnsSelect, parameters: SqlParameters): string {
  const hits = `hits AS (SELECT ${select.hitColumns}, t.search_vector ${select.from} WHERE ${select.where.join(' AND ')})`;
  const words = ranking.words;
  if (!words || words.length < 2) {
    return `${hits}, scored AS (SELECT ${select.columns}, ${RANK('h.search_vector', ranking.tsquery())} AS score FROM hits h)`;
  }
  const list = parameters.add(words);
  // Weighing among the hits, they are that population already: no second scan.
  const pool = ranking.weighAmongHits
    ? 'SELECT h.turn_type, h.search_vector FROM hits h'
    : 'SELECT t.turn_type, t.search_vector FROM agent_turns t WHERE ' +
      [`t.search_vector @@ nexus_words_tsquery(${list}::text[], true)`, ...select.filters].join(' AND ');
  return (
    `query_words AS (SELECT DISTINCT q FROM unnest(${list}::text[]) AS w (word), ` +
    "phraseto_tsquery('english'::regconfig, w.word) AS q WHERE numnode(q) > 0), " +
    `${hits}, ` +
    `pool AS MATERIALIZED (${pool}), ` +
    'weights AS MATERIALIZED (SELECT w.q, p.turn_type, ln(1 + ((SELECT count(*) FROM pool o WHERE o.turn_type = p.turn_type) ' +
    '- count(*) + 0.5)::float8 / (count(*) + 0.5)) AS idf FROM query_words w JOIN pool p ON p.search_vector @@ w.q ' +
    'GROUP BY w.q, p.turn_type), ' +
    // Summed in one order, so a page's cursor meets the same float on the next page.
    `scored AS (SELECT ${select.columns}, (SELECT coalesce(sum(g.idf * ts_rank_cd(h.search_vector, g.q, 1) ORDER BY g.q::text), 0) ` +
    'FROM weights g WHERE g.turn_type = h.turn_type)::float8 AS score FROM hits h)'
  );
}
