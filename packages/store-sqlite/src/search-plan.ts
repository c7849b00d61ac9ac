// What one SQLite search matches and ranks, decided before any row is ranked (@agent-ledger/store search-bounds.ts):
// the words that rank it, the expression that finds something under the filters (every word, then
// any), and the rowid from which the newest matches count when too many match. Turn and event
// searches share it; every page of one search decides the same while the index is unchanged.

import type { SearchMatch } from '@agent-ledger/store';
import { anyWordExpression, everyWordExpression, matchExpressions, type SearchExpression, wordLiteral } from './fts5-query.ts';
import type { SearchIndex } from './fts5-snippet.ts';
import { commonWords, matchingRows, type NewestRows, newestRows, type RowSource } from './search-candidates.ts';
import type { Clauses } from './search-clauses.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

/** Where a search looks: its indexes, the rows they cover, and the filters over those rows. */
export interface SearchSource {
  indexes: readonly SearchIndex[];
  rows: RowSource;
  filters: Clauses;
}

/** The expression a search ranks, and which of its matches (null: every match ranks). */
export interface SearchPlan {
  expression: SearchExpression;
  newest: NewestRows | null;
}

/** Whether `match` finds any row under the filters (unranked: bm25 would count every word first). */
function anyMatch(connection: SqliteConnection, match: string, { indexes, rows, filters }: SearchSource): boolean {
  const matched = matchingRows(indexes, match);
  const where = filters.clauses.length > 0 ? ` WHERE ${filters.clauses.join(' AND ')}` : '';
  const sql = `SELECT 1 FROM ${matched.sql} CROSS JOIN ${rows.table} ${rows.alias} ON ${rows.alias}.rowid = m.matchRowid${where} LIMIT 1`;
  return connection.statement(sql).get(...matched.parameters, ...filters.parameters) !== undefined;
}

/** How many of the rows stored last tell which word of a query is the least common. */
const SAMPLE_ROWS = 5000;

/**
 * The word the fewest of the SAMPLE_ROWS rows stored last hold (the first such word on a tie): a
 * few thousand rows tell common words apart as well as their whole lists, for a bounded cost.
 */
function leastCommonWord(
  connection: SqliteConnection,
  { words, indexes, rows }: { words: readonly string[]; indexes: readonly SearchIndex[]; rows: RowSource },
): string {
  const { newest } = connection.statement(`SELECT max(rowid) AS newest FROM ${rows.table}`).get() as { newest: number | null };
  const from = (newest ?? 0) - SAMPLE_ROWS + 1;
  const counts = indexes.map((index) => `(SELECT count(*) FROM ${index} WHERE ${index} MATCH ? AND rowid >= CAST(? AS INTEGER))`);
  const statement = connection.statement(`SELECT ${counts.join(' + ')} AS n`);
  let least = { word: words[0] ?? '', rows: Number.POSITIVE_INFINITY };
  for (const word of words) {
    const literal = wordLiteral(word);
    const { n } = statement.get(...indexes.flatMap(() => [literal, from])) as { n: number };
    if (n < least.rows) least = { word, rows: n };
  }
  return least.word;
}

/** The plan of `expression`: which of its matches rank, and, past the bound with every word common, by what. */
function boundedPlan(
  connection: SqliteConnection,
  { expression, words, common }: { expression: SearchExpression; words: readonly string[]; common: ReadonlySet<string> | null },
  source: SearchSource,
): SearchPlan {
  const newest = newestRows(connection, {
    indexes: source.indexes,
    match: expression.match,
    rows: source.rows,
    filters: source.filters,
  });
  // `common` null: more rows than RANKED_ROWS (>= COMMON_WORD_ROWS) hold every word, so all are common.
  const everyWordCommon = words.length > 1 && (common === null || common.size === words.length);
  if (newest === null || !everyWordCommon) return { expression, newest };
  const least = leastCommonWord(connection, { words, indexes: source.indexes, rows: source.rows });
  return { expression: { match: expression.match, rank: wordLiteral(least) }, newest };
}

/**
 * The plan of a search, or undefined when nothing can match. Every word first: when more than
 * RANKED_ROWS rows hold every word, each word is common (RANKED_ROWS >= COMMON_WORD_ROWS) and the
 * newest rows are ranked by the least common word alone (among the rows stored last): bm25 counts
 * every row holding each word it ranks by (FTS5 computes a word's weight by walking its whole list),
 * so ranking by every common word would cost that walk once per word. Otherwise the words are
 * counted (up to COMMON_WORD_ROWS + 1 rows each) and the common ones leave the ranking, or the
 * any-word match.
 */
export function planSearch(connection: SqliteConnection, match: SearchMatch, source: SearchSource): SearchPlan | undefined {
  if ('advanced' in match) {
    const [advanced] = matchExpressions(match);
    if (advanced === undefined) return undefined;
    return boundedPlan(connection, { expression: { match: advanced, rank: advanced }, words: [], common: new Set() }, source);
  }
  const { words, mode } = match;
  if (words.length === 0) return undefined;
  if (mode !== 'any') {
    const every = everyWordExpression(words, new Set());
    if (mode === 'all' || words.length === 1 || anyMatch(connection, every.match, source)) {
      const plan = boundedPlan(connection, { expression: every, words, common: null }, source);
      if (plan.newest !== null) return plan;
      return {
        expression: everyWordExpression(words, commonWords(connection, { words, indexes: source.indexes })),
        newest: null,
      };
    }
  }
  const common = commonWords(connection, { words, indexes: source.indexes });
  const rare = anyWordExpression(words, common);
  // The rare words match nothing under the filters (absent from this line, or a typo): the common
  // words are all the query has left, rather than no result at all.
  if (common.size > 0 && common.size < words.length && !anyMatch(connection, rare.match, source)) {
    return commonWordsPlan(
      connection,
      words.filter((word) => common.has(word)),
      source,
    );
  }
  return boundedPlan(connection, { expression: rare, words, common }, source);
}

/**
 * The plan of an any-word search by common words alone: their newest matches, ranked by the least
 * common of them (bm25 by every common word would walk each one's whole list), as when every word
 * of a query is common.
 */
function commonWordsPlan(connection: SqliteConnection, common: readonly string[], source: SearchSource): SearchPlan {
  const every = new Set(common);
  const plan = boundedPlan(connection, { expression: anyWordExpression(common, every), words: common, common: every }, source);
  if (plan.newest !== null || common.length < 2) return plan;
  const least = leastCommonWord(connection, { words: common, indexes: source.indexes, rows: source.rows });
  return { expression: { match: plan.expression.match, rank: wordLiteral(least) }, newest: null };
}
