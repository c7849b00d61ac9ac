// What one PostgreSQL search matches and ranks, decided before any row is ranked (@agent-ledger/store search-bounds.ts):
// the words that rank it, the expression that finds something under the filters (every word, then
// any), and which of its matches rank when too many match (the newest). Turn and event
// searches share it; every page of one search decides the same while the rows are unchanged.

import type { SearchMatch } from '@agent-ledger/store';
import { RANKED_ROWS } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import type { SearchSource } from './search-source.ts';
import { leastCommonOnly, type WordWeight, wordStatistics } from './search-statistics.ts';
import {
  anyWordExpression,
  everyWordExpression,
  matchExpressions,
  matchingClause,
  type SearchExpression,
} from './search-tsquery.ts';
import { SqlParameters } from './sql-parameters.ts';

/** The expression a search ranks, which rows it ranks, and how its words weigh. */
export interface SearchPlan {
  expression: SearchExpression;
  /** The ctids of the RANKED_ROWS newest matches when more rows match (null: every match ranks). */
  newest: string[] | null;
  /** The rank words' bm25 weights in each index the search reads (null: advanced syntax, no words to weigh). */
  weights: readonly WordWeight[] | null;
}

/** The conditions of `expression` under the source's filters, binding their values. */
function conditions(expression: SearchExpression, source: SearchSource, parameters: SqlParameters): string[] {
  return [matchingClause(expression, `${source.alias}.search_vector`, parameters).sql, ...source.filters(parameters)];
}

/**
 * The RANKED_ROWS newest matches (by age, then id), up to one more: their ctids, so that a page of a
 * bounded search reads those rows directly instead of walking the same stretch of the table again,
 * and how many there were (0: nothing matches, and every-word searches fall back to any word).
 * Reads backwards along the age index when matches are many (stopping one row past the bound), from
 * the text index when they are few: the planner picks by its estimate of the words' frequency.
 * A source of several kinds (turns and summaries) reads each kind's newest apart, along that kind's
 * own age index (migration 0008), and keeps the newest of both: one walk over every kind would
 * check the text of every row of the other kind it meets.
 */
async function newestMatches(db: PgExecutor, expression: SearchExpression, source: SearchSource): Promise<string[]> {
  const parameters = new SqlParameters();
  const where = conditions(expression, source, parameters);
  const { alias } = source;
  const newest = (rows: readonly string[]) =>
    `SELECT ${alias}.ctid::text AS tid, ${source.age} AS age, ${alias}.id FROM ${source.table} ${alias} ` +
    `WHERE ${[...where, ...rows].join(' AND ')} ORDER BY ${source.age} DESC, ${alias}.id DESC LIMIT ${RANKED_ROWS + 1}`;
  const sql =
    source.kinds.length < 2
      ? newest([])
      : `SELECT n.tid, n.age, n.id FROM (${source.kinds.map((kind) => `(${newest(kind.rows(parameters))})`).join(' UNION ALL ')}) n ` +
        `ORDER BY n.age DESC, n.id DESC LIMIT ${RANKED_ROWS + 1}`;
  return (await db.query<{ tid: string }>(sql, parameters.values)).map((row) => row.tid);
}

/** The newest RANKED_ROWS of `newest` when it holds more, else null (every match ranks). */
const bounded = (newest: readonly string[]) => (newest.length > RANKED_ROWS ? newest.slice(0, RANKED_ROWS) : null);

/** The weights `expression` ranks by, of the `statistics` read: a bounded search with every word common by the least common word's. */
function rankWeights(
  statistics: { weightsOf: (words: readonly string[]) => WordWeight[] },
  expression: SearchExpression,
  newest: readonly string[] | null,
): readonly WordWeight[] {
  const weights = statistics.weightsOf(expression.rank.words ?? []);
  return newest !== null ? leastCommonOnly(weights) : weights;
}

/**
 * The plan of a search, or undefined when nothing can match. Every word first: when more than
 * RANKED_ROWS rows hold every word, each word is common (RANKED_ROWS >= COMMON_WORD_ROWS), and the
 * newest rows are ranked by every word, weighed among them (the least common alone when all are
 * common: leastCommonOnly). Otherwise one statement (search-statistics.ts) tells which words are
 * common (counted up to COMMON_WORD_ROWS + 1 rows each, unless the store knows them common already:
 * search-known-common.ts; they leave the ranking, or the any-word match) and the weights of those
 * that rank.
 */
export async function planSearch(db: PgExecutor, match: SearchMatch, source: SearchSource): Promise<SearchPlan | undefined> {
  if ('advanced' in match) {
    const [advanced] = matchExpressions(match);
    if (advanced === undefined) return undefined;
    const expression = { match: advanced, rank: advanced };
    const newest = bounded(await newestMatches(db, expression, source));
    return { expression, newest, weights: null };
  }
  const { words, mode } = match;
  if (words.length === 0) return undefined;
  // A single word is never counted: it ranks alone whatever its frequency.
  const statistics = () => wordStatistics(db, { source, words, commonness: words.length > 1 });
  if (mode !== 'any') {
    const every = everyWordExpression(words, new Set());
    const found = await newestMatches(db, every, source);
    const newest = bounded(found);
    if (newest !== null) {
      const all = await wordStatistics(db, { source, words, commonness: false });
      return { expression: every, newest, weights: rankWeights(all, every, newest) };
    }
    if (found.length > 0 || mode === 'all' || words.length === 1) {
      const read = await statistics();
      const expression = everyWordExpression(words, read.common);
      return { expression, newest: null, weights: rankWeights(read, expression, null) };
    }
  }
  const read = await statistics();
  const expression = anyWordExpression(words, read.common);
  const found = await newestMatches(db, expression, source);
  const common = words.filter((word) => read.common.has(word));
  // The rare words match nothing under the filters (absent from this line, or a typo): the common
  // words are all the query has left, rather than no result at all.
  if (found.length === 0 && common.length > 0 && common.length < words.length) return commonWordsPlan(db, common, source);
  const newest = bounded(found);
  return { expression, newest, weights: rankWeights(read, expression, newest) };
}

/**
 * The plan of an any-word search by common words alone: their newest matches, ranked by the least
 * common of them (leastCommonOnly), as when every word of a query is common; SQLite's plan is the same.
 */
async function commonWordsPlan(db: PgExecutor, common: readonly string[], source: SearchSource): Promise<SearchPlan> {
  const expression = anyWordExpression(common, new Set(common));
  // Neither read needs the other: outside a transaction they run at once, on two pooled connections.
  const [found, statistics] = await Promise.all([
    newestMatches(db, expression, source),
    wordStatistics(db, { source, words: common, commonness: false }),
  ]);
  return { expression, newest: bounded(found), weights: leastCommonOnly(statistics.weightsOf(expression.rank.words ?? [])) };
}

/**
 * SQL true for the rows a plan ranks (its matches under the filters, or the newest of them, read by
 * ctid), and the rank tsquery's SQL.
 */
export function plannedRows(
  plan: SearchPlan,
  source: SearchSource,
  parameters: SqlParameters,
): { where: string[]; rank: () => string } {
  if (plan.newest !== null) {
    // The rank tsquery binds its words only if the statement uses it (an unused parameter has no type).
    const rank = () => plan.expression.rank(parameters);
    return { where: [`${source.alias}.ctid = ANY(${parameters.add(plan.newest)}::tid[])`], rank };
  }
  const matching = matchingClause(plan.expression, `${source.alias}.search_vector`, parameters);
  return { where: [matching.sql, ...source.filters(parameters)], rank: () => matching.rank };
}
