// Which rows a SQLite search ranks (@agent-ledger/store search-bounds.ts): the words common enough to leave the ranking,
// the rowid from which the newest matches count when too many match, and the FTS5 subqueries that
// read the matches, ranked or not, from one index or two.

import { COMMON_WORD_ROWS, RANKED_ROWS } from '@agent-ledger/store';
import { type SearchExpression, wordLiteral } from './fts5-query.ts';
import type { SearchIndex } from './fts5-snippet.ts';
import type { Clauses } from './search-clauses.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

/** SQL and the parameters it binds, in order. */
export interface BoundSql {
  sql: string;
  parameters: unknown[];
}

/**
 * The words more than COMMON_WORD_ROWS rows of `indexes` hold, together. Each count stops one row
 * past the bound, so a word costs at most that many rows of its list; a single word is never
 * counted (it ranks alone whatever its frequency).
 */
export function commonWords(
  connection: SqliteConnection,
  { words, indexes }: { words: readonly string[]; indexes: readonly SearchIndex[] },
): Set<string> {
  const common = new Set<string>();
  if (words.length < 2) return common;
  const counts = indexes.map(
    (index) => `(SELECT count(*) FROM (SELECT 1 FROM ${index} WHERE ${index} MATCH ? LIMIT ${COMMON_WORD_ROWS + 1}))`,
  );
  const statement = connection.statement(`SELECT ${counts.join(' + ')} AS n`);
  for (const word of words) {
    const literal = wordLiteral(word);
    const { n } = statement.get(...indexes.map(() => literal)) as { n: number };
    if (n > COMMON_WORD_ROWS) common.add(word);
  }
  return common;
}

/** `m (matchRowid)`: the rows of `indexes` that `match` finds, unranked. */
export function matchingRows(indexes: readonly SearchIndex[], match: string): BoundSql {
  const parts = indexes.map((index) => `SELECT rowid AS matchRowid FROM ${index} WHERE ${index} MATCH ?`);
  return { sql: `(${parts.join(' UNION ALL ')}) m`, parameters: indexes.map(() => match) };
}

/** The newest RANKED_ROWS matches of a bounded search: the rowid of the oldest, and their rowids per index. */
export interface NewestRows {
  floor: number;
  rowids: ReadonlyMap<SearchIndex, readonly number[]>;
}

// CAST: FTS5 uses a rowid bound only when it is bound as an integer (a JS number binds as a double).
const FROM_FLOOR = 'rowid >= CAST(? AS INTEGER)';
// `+rowid`: a test on each row FTS5 reads, not a lookup per value (a seek into every word's list).
const AMONG = '+rowid IN (SELECT value FROM json_each(?))';

/**
 * `m (matchRowid, score)`: the rows `expression.match` finds (or, bounded, the newest of them), each
 * scored by its own index's bm25 over `expression.rank`. When the two differ, each index's rank
 * expression is scored once, for the matching rows only (MATERIALIZED: looked up per row, bm25
 * would count its words again each time), and a matching row the rank expression does not find
 * scores 0, after every ranked row. Bounded, FTS5 reads the rank expression from the oldest of the
 * newest rows on, and the rows ranked are those rows, not the match walked again.
 */
export function rankedRows(indexes: readonly SearchIndex[], expression: SearchExpression, newest: NewestRows | null): BoundSql {
  if (newest !== null) return newestRanked(indexes, expression, newest);
  if (expression.rank === expression.match) {
    const parts = indexes.map(
      (index) => `SELECT rowid AS matchRowid, bm25(${index}) AS score FROM ${index} WHERE ${index} MATCH ?`,
    );
    return { sql: `(${parts.join(' UNION ALL ')}) m`, parameters: indexes.map(() => expression.match) };
  }
  const ranked = indexes.map(
    (index, position) =>
      `r${position} AS MATERIALIZED (SELECT rowid AS rankRowid, bm25(${index}) AS score FROM ${index} WHERE ${index} MATCH ? ` +
      `AND +rowid IN (SELECT x.rowid FROM ${index} x WHERE x.${index} MATCH ?))`,
  );
  const parts = indexes.map(
    (index, position) =>
      `SELECT c.rowid AS matchRowid, coalesce(r.score, 0) AS score FROM ${index} c ` +
      `LEFT JOIN r${position} r ON r.rankRowid = c.rowid WHERE c.${index} MATCH ?`,
  );
  return {
    sql: `(WITH ${ranked.join(', ')} ${parts.join(' UNION ALL ')}) m`,
    parameters: [...indexes.flatMap(() => [expression.rank, expression.match]), ...indexes.map(() => expression.match)],
  };
}

/** rankedRows of a bounded search: the newest rows, ranked by the rank expression (0 where it finds none). */
function newestRanked(indexes: readonly SearchIndex[], expression: SearchExpression, newest: NewestRows): BoundSql {
  const among = (index: SearchIndex) => JSON.stringify(newest.rowids.get(index) ?? []);
  const ranked = indexes.map(
    (index, position) =>
      `r${position} AS MATERIALIZED (SELECT rowid AS rankRowid, bm25(${index}) AS score FROM ${index} ` +
      `WHERE ${index} MATCH ? AND ${FROM_FLOOR} AND ${AMONG})`,
  );
  const parts = indexes.map(
    (_, position) =>
      `SELECT c.value AS matchRowid, coalesce(r.score, 0) AS score FROM json_each(?) c LEFT JOIN r${position} r ON r.rankRowid = c.value`,
  );
  return {
    sql: `(WITH ${ranked.join(', ')} ${parts.join(' UNION ALL ')}) m`,
    parameters: [
      ...indexes.flatMap((index) => [expression.rank, newest.floor, among(index)]),
      ...indexes.map((index) => among(index)),
    ],
  };
}

/** The table an index covers, and the alias its filters use (`agent_turns t`, `events e`). */
export interface RowSource {
  table: 'agent_turns' | 'events';
  alias: 't' | 'e';
}

/**
 * The RANKED_ROWS newest matches under the filters when more rows match, else null. FTS5 reads each
 * list from its end (rowid DESC) and stops one row past the bound, so this costs RANKED_ROWS rows
 * when the filters keep most matches (further when they keep few).
 */
export function newestRows(
  connection: SqliteConnection,
  { indexes, match, rows, filters }: { indexes: readonly SearchIndex[]; match: string; rows: RowSource; filters: Clauses },
): NewestRows | null {
  const parts = indexes.map(
    (index, position) => `SELECT rowid AS matchRowid, ${position} AS part FROM ${index} WHERE ${index} MATCH ?`,
  );
  // The filters name the rows' own columns: join them only when there are filters.
  const joined =
    filters.clauses.length > 0 ? ` CROSS JOIN ${rows.table} ${rows.alias} ON ${rows.alias}.rowid = m.matchRowid` : '';
  const where = filters.clauses.length > 0 ? ` WHERE ${filters.clauses.join(' AND ')}` : '';
  const sql =
    `SELECT m.matchRowid AS rowid, m.part AS part FROM (${parts.join(' UNION ALL ')}) m${joined}${where} ` +
    `ORDER BY m.matchRowid DESC LIMIT ${RANKED_ROWS + 1}`;
  const found = connection.statement(sql).all(...indexes.map(() => match), ...filters.parameters) as Array<{
    rowid: number;
    part: number;
  }>;
  if (found.length <= RANKED_ROWS) return null;
  const kept = found.slice(0, RANKED_ROWS);
  const rowids = new Map(
    indexes.map((index, position) => [index, kept.filter((row) => row.part === position).map((row) => row.rowid)]),
  );
  return { floor: kept.at(-1)?.rowid ?? 0, rowids };
}
