// What one PostgreSQL search matches and ranks, decided before any row is ranked (@agent-ledger/store search-bounds.ts):
// the words that rank it, the expression that finds something under the filters (every word, then
// any), and which of its matches rank when too many match (the newest). Turn and event
// searches share it; every page of one search decides the same while the rows are unchanged.

import type { SearchMatch } from '@agent-ledger/store';
import { COMMON_WORD_ROWS, RANKED_ROWS } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { SEARCH_CONFIGURATION } from './schema.ts';
import {
  anyWordExpression,
  everyWordExpression,
  matchExpressions,
  matchingClause,
  type SearchExpression,
} from './search-tsquery.ts';
import { SqlParameters } from './sql-parameters.ts';

/** The rows of one index: a turn type (SQLite's turns_fts, compactions_fts), or every event. */
export interface RankedKind {
  /** The turn type (`normal`, `compaction`), or '' for events. */
  kind: string;
  /** SQL true for the index's rows among the table's (alias as the search's), binding its values. */
  rows: (parameters: SqlParameters) => string[];
}

/** Where a search looks: a table and its alias, its newest-first column, and its conditions. */
export interface SearchSource {
  table: 'agent_turns' | 'events';
  alias: 't' | 'e';
  /** The column "newest" is read by, backwards along its index: timestamp or received_at. */
  age: string;
  /** The search's filters over the alias, binding their values. */
  filters: (parameters: SqlParameters) => string[];
  /** The rows a word's frequency is counted over (the turn type searched): no other filter. */
  population: (parameters: SqlParameters) => string[];
  /** The indexes bm25 weighs words in, as SQLite keeps them (turns and summaries apart; events). */
  kinds: readonly RankedKind[];
}

/** The expression a search ranks, which rows it ranks, and how its words weigh. */
export interface SearchPlan {
  expression: SearchExpression;
  /** The ctids of the RANKED_ROWS newest matches when more rows match (null: every match ranks). */
  newest: string[] | null;
}

/**
 * The words more than COMMON_WORD_ROWS rows hold, counted in one statement, each count stopping one
 * row past the bound (a common word's count reads that many of its rows; a rare one is read from the
 * index), and the words with no lexeme (nothing but punctuation: they match nothing and weigh nothing
 * here, so they never rank). A single word is never counted: it ranks alone whatever its frequency.
 */
async function commonWords(db: PgExecutor, words: readonly string[], source: SearchSource): Promise<Set<string>> {
  const common = new Set<string>();
  if (words.length < 2) return common;
  const parameters = new SqlParameters();
  const { table, alias } = source;
  const counts = words.map((word, index) => {
    const tsquery = `phraseto_tsquery('${SEARCH_CONFIGURATION}'::regconfig, ${parameters.add(word.replaceAll('\0', ' '))})`;
    const where = [`${alias}.search_vector @@ ${tsquery}`, ...source.population(parameters)];
    return (
      `CASE WHEN numnode(${tsquery}) = 0 THEN ${COMMON_WORD_ROWS + 1} ELSE (SELECT count(*)::float8 FROM ` +
      `(SELECT 1 FROM ${table} ${alias} WHERE ${where.join(' AND ')} LIMIT ${COMMON_WORD_ROWS + 1}) w) END AS c${index}`
    );
  });
  const [row] = await db.query<Record<string, number>>(`SELECT ${counts.join(', ')}`, parameters.values);
  words.forEach((word, index) => {
    if ((row?.[`c${index}`] ?? 0) > COMMON_WORD_ROWS) common.add(word);
  });
  return common;
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
 */
async function newestMatches(db: PgExecutor, expression: SearchExpression, source: SearchSource): Promise<string[]> {
  const parameters = new SqlParameters();
  const where = conditions(expression, source, parameters);
  const sql =
    `SELECT ${source.alias}.ctid::text AS tid FROM ${source.table} ${source.alias} WHERE ${where.join(' AND ')} ` +
    `ORDER BY ${source.age} DESC, ${source.alias}.id DESC LIMIT ${RANKED_ROWS + 1}`;
  return (await db.query<{ tid: string }>(sql, parameters.values)).map((row) => row.tid);
}

/** The newest RANKED_ROWS of `newest` when it holds more, else null (every match ranks). */
const bounded = (newest: readonly string[]) => (newest.length > RANKED_ROWS ? newest.slice(0, RANKED_ROWS) : null);

/**
 * The plan of a search, or undefined when nothing can match. Every word first: when more than
 * RANKED_ROWS rows hold every word, each word is common (RANKED_ROWS >= COMMON_WORD_ROWS), and the
 * newest rows are ranked by every word, weighed among them. Otherwise the words are counted (up to
 * COMMON_WORD_ROWS + 1 rows each) and the common ones leave the ranking, or the any-word match.
 */
export async function planSearch(db: PgExecutor, match: SearchMatch, source: SearchSource): Promise<SearchPlan | undefined> {
  if ('advanced' in match) {
    const [advanced] = matchExpressions(match);
    if (advanced === undefined) return undefined;
    const expression = { match: advanced, rank: advanced };
    const newest = bounded(await newestMatches(db, expression, source));
    return { expression, newest };
  }
  const { words, mode } = match;
  if (words.length === 0) return undefined;
  if (mode !== 'any') {
    const every = everyWordExpression(words, new Set());
    const found = await newestMatches(db, every, source);
    const newest = bounded(found);
    if (newest !== null) return { expression: every, newest };
    if (found.length > 0 || mode === 'all' || words.length === 1) {
      return { expression: everyWordExpression(words, await commonWords(db, words, source)), newest: null };
    }
  }
  const expression = anyWordExpression(words, await commonWords(db, words, source));
  return { expression, newest: bounded(await newestMatches(db, expression, source)) };
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
