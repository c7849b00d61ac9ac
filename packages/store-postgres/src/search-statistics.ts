// What bm25 needs to know about the rows a PostgreSQL search ranks among, read as FTS5 keeps it
// for SQLite: how many rows each index holds (turns and compaction summaries apart, as SQLite's two
// indexes; events), their average length, and how many hold each ranking word, over the whole table
// and never the search's filters (FTS5's bm25 reads its whole index), in the same statement as the
// words' commonness (search-commonness.ts) when the plan needs it; a word the store knows common
// (search-known-common.ts) is not counted again, and what the statement counts teaches it. The
// bm25 itself is @agent-ledger/store's (search-bm25.ts); search-ranking.ts sums it in SQL.

import { bm25Idf, COMMON_WORD_ROWS } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { SEARCH_CONFIGURATION } from './schema.ts';
import { countFromPopulation, populationClauses, populationColumns, WORD_COUNTS, wordRanks } from './search-commonness.ts';
import { type KnownCommon, knownCommonWords } from './search-known-common.ts';
import type { RankedKind, SearchSource } from './search-source.ts';
import { withoutNul } from './search-tsquery.ts';
import { SqlParameters } from './sql-parameters.ts';

/**
 * An index of up to this many rows is read whole, and its statistics are exact (every
 * conversation of the evaluation sets). Beyond, they are estimated from its first SAMPLE_ROWS
 * rows in the kind's sampleOrder (the same rows every time): the average length is theirs, the row count is PostgreSQL's estimate of the table
 * (`pg_class.reltuples`), and a word more than COMMON_WORD_ROWS rows hold is counted among them
 * and scaled. A row's length costs a few µs to read, so a search pays at most STATISTICS_ROWS of
 * them on a small ledger and SAMPLE_ROWS on a large one.
 */
export const STATISTICS_ROWS = 1000;
const SAMPLE_ROWS = 200;

/** A word's weight in one index. */
export interface WordWeight {
  kind: string;
  /** The word's place in the query: scores are summed in this order, so a cursor meets the same float. */
  position: number;
  word: string;
  idf: number;
  averageLength: number;
  /** How many rows of the index hold the word (exact up to COMMON_WORD_ROWS, else an estimate). */
  holding: number;
}

interface KindCounts {
  /** The kind's place in the statement. */
  at: number;
  rows: number;
  sampled: number;
  estimate: number;
  /** Null when the caller already knew it (knownRows matched). */
  averageLength: number | null;
  /** Each word's commonness, in the words' order (only when the statement counted it). */
  common?: boolean[];
  /** The rows each word's population count read, and how many of them this kind holds (ditto). */
  populationRows?: Array<number | null>;
  kindRows?: Array<number | null>;
  [count: string]: number | Array<boolean | number | null> | null | undefined;
}

/**
 * The length of a tsvector as FTS5 counts a row's tokens: its positions, read as ranking reads them
 * (search-ranking.ts: ts_rank_cd over the row's first lexeme with and without length normalization,
 * three times cheaper than unnesting the vector). 0 for an empty row. Lexemes never hold
 * punctuation (the index makes it spaces), so one quoted is a valid tsquery.
 */
const VECTOR_LENGTH = (vector: string) => {
  const first = `quote_literal((tsvector_to_array(${vector}))[1])::tsquery`;
  return (
    `coalesce(ts_rank_cd('{1,1,1,1}'::float4[], ${vector}, ${first}, 0)::float8 / ` +
    `nullif(ts_rank_cd('{1,1,1,1}'::float4[], ${vector}, ${first}, 2)::float8, 0), 0)`
  );
};

interface KindStatement {
  table: string;
  alias: string;
  kind: RankedKind;
  /** Each word's tsquery as SQL (bound once for the whole statement). */
  tsqueries: readonly string[];
  /** The row count the average length below was read at (-1: none): the same count skips reading it again. */
  knownRows: number;
  /** The statement counts the words' commonness first (search-commonness.ts): their counts are read there. */
  population: boolean;
  /** True for a word (by place) known held by more than COMMON_WORD_ROWS rows of this kind: its count is that. */
  knownCommon: (word: number) => boolean;
}

/**
 * Average lengths already read, per database: reading one costs the length of every sampled row
 * (20 ms for 500 compaction summaries at a million turns), while a kind that counts the same rows
 * holds the same rows (turns and events are never deleted; past STATISTICS_ROWS the sample is the
 * table's first rows, estimated anyway), so each is read once per count.
 */
const knownAverages = new WeakMap<PgExecutor, Map<string, { rows: number; averageLength: number }>>();

function averagesOf(db: PgExecutor): Map<string, { rows: number; averageLength: number }> {
  let averages = knownAverages.get(db);
  if (!averages) {
    averages = new Map();
    knownAverages.set(db, averages);
  }
  return averages;
}

/**
 * One row of counts for one kind, as SQL (its CTEs named by `at`, the kind's place in the
 * statement): the rows counted first, unread (one more than STATISTICS_ROWS tells a large index),
 * then the sample read once for every word (one aggregate: planning and reading a subquery per word
 * cost more than the counting).
 */
function kindCounts(statement: KindStatement, at: number, parameters: SqlParameters): string {
  const { table, alias, kind, tsqueries, knownRows } = statement;
  const where = kind.rows(parameters);
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  const [counted, sample, found] = [`counted${at}`, `sample${at}`, `found${at}`];
  // The words' counts, one row (search-commonness.ts), joined where their columns are read.
  const counts = statement.population ? `, ${WORD_COUNTS} p` : '';
  const estimate = `(SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = '${table}'::regclass)::float8`;
  // A word that does not rank is not matched against the sample (its weight is never read).
  const inSample = tsqueries.map((tsquery, index) => {
    const matches = statement.population ? `${wordRanks(index)} AND s.v @@ ${tsquery}` : `s.v @@ ${tsquery}`;
    return `, count(*) FILTER (WHERE ${matches})::float8 AS s${index}`;
  });
  const wordColumns = tsqueries.flatMap((tsquery, index) => {
    const holding = [...where, `${alias}.search_vector @@ ${tsquery}`].join(' AND ');
    // Counted only where the count is used and cheap: a whole index's sample is exact already, and
    // a word the sample shows common would fill a bitmap of all its rows to count 1,001 of them
    // (-1: not counted, scaled from the sample). PostgreSQL runs a CASE branch's subquery only when taken.
    const common = `greatest(c.rows, e.estimate) * f.s${index} / greatest(f.sampled, 1) > ${COMMON_WORD_ROWS}`;
    // A word known common in this kind would count COMMON_WORD_ROWS + 1 rows: that number, unread.
    const ownCount = statement.knownCommon(index)
      ? `${COMMON_WORD_ROWS + 1}`
      : `(SELECT count(*) FROM (SELECT 1 FROM ${table} ${alias} WHERE ${holding} LIMIT ${COMMON_WORD_ROWS + 1}) w)`;
    const count = statement.population ? countFromPopulation(index, at, ownCount) : ownCount;
    return [
      `f.s${index}`,
      `(CASE WHEN c.rows <= ${STATISTICS_ROWS} OR ${common} THEN -1 ELSE ${count} END)::float8 AS c${index}`,
    ];
  });
  if (statement.population) wordColumns.push(populationColumns(at));
  const averageLength =
    `(CASE WHEN c.rows = ${parameters.add(knownRows)} THEN NULL ELSE ` +
    `(SELECT coalesce(avg(${VECTOR_LENGTH('s.v')}), 0) FROM ${sample} s) END)::float8 AS "averageLength"`;
  return (
    `(WITH ${counted} AS MATERIALIZED (SELECT count(*)::float8 AS rows FROM (SELECT 1 FROM ${table} ${alias}${filter} ` +
    `LIMIT ${STATISTICS_ROWS + 1}) x), ${sample} AS MATERIALIZED (SELECT ${alias}.search_vector AS v FROM ${table} ${alias}${filter} ` +
    `ORDER BY ${kind.sampleOrder} LIMIT (SELECT CASE WHEN rows > ${STATISTICS_ROWS} THEN ${SAMPLE_ROWS} ELSE ${STATISTICS_ROWS} END FROM ${counted})), ` +
    `${found} AS MATERIALIZED (SELECT count(*)::float8 AS sampled${inSample.join('')} FROM ${sample} s${counts}) ` +
    `SELECT ${at} AS at, c.rows, f.sampled, e.estimate, ${averageLength}` +
    `${wordColumns.map((column) => `, ${column}`).join('')} FROM ${counted} c, ${found} f, (SELECT ${estimate} AS estimate) e${counts})`
  );
}

/** What one statistics statement tells of a search's words. */
export interface WordStatistics {
  /** The words more than COMMON_WORD_ROWS rows hold, or with no lexeme (empty unless asked for). */
  common: ReadonlySet<string>;
  /**
   * The weight of each of `words` (the words that rank, each one of those counted, without NUL) in
   * each index: bm25's idf and the index's average length. Exact while an index holds at most
   * STATISTICS_ROWS rows; estimated beyond (STATISTICS_ROWS).
   */
  weightsOf(words: readonly string[]): WordWeight[];
}

/** Options of wordStatistics: the source searched, its words, and whether to tell the common ones. */
export interface WordStatisticsRequest {
  source: SearchSource;
  words: readonly string[];
  /** Count each word among the rows of the type searched (search-commonness.ts) to tell the common ones. */
  commonness: boolean;
}

/**
 * The statistics of `words` in each index of the source, and which words are common when asked: one
 * statement, one round trip per search. Every word's statistics are read (the words that rank are
 * known only once their commonness is), but a word's count is read only where it ranks.
 */
export async function wordStatistics(
  db: PgExecutor,
  { source, words, commonness }: WordStatisticsRequest,
): Promise<WordStatistics> {
  const { table, alias, kinds } = source;
  const parameters = new SqlParameters();
  const averages = averagesOf(db);
  const keyOf = (kind: RankedKind) => `${table}\u0000${kind.kind}`;
  const plain = words.map(withoutNul);
  const known = knownCommonWords(db, source);
  const knownCommon = plain.map((word) => known.inPopulation(word));
  // Every word known common: the count would tell nothing new (each common, all_common, every word
  // ranking and its kinds counted as without a population), so none is counted.
  const allKnown = commonness && knownCommon.every(Boolean);
  const counting = commonness && !allKnown;
  const tsqueries = plain.map((word) => `phraseto_tsquery('${SEARCH_CONFIGURATION}'::regconfig, ${parameters.add(word)})`);
  const population = counting
    ? `WITH ${populationClauses(source, tsqueries, { parameters, knownCommon: (word) => knownCommon[word] === true })} `
    : '';
  const selects = kinds.map((kind, at) => {
    const knownRows = averages.get(keyOf(kind))?.rows ?? -1;
    const inKind = (word: number) => known.inKind(at, plain[word] ?? '');
    return kindCounts({ table, alias, kind, tsqueries, knownRows, population: counting, knownCommon: inKind }, at, parameters);
  });
  // A WITH before one parenthesized select that has its own WITH would be two WITH clauses of one select.
  const sql = counting ? `${population}SELECT * FROM (${selects.join(' UNION ALL ')}) k` : selects.join(' UNION ALL ');
  const found = await db.query<KindCounts>(sql, parameters.values);
  const common = new Set<string>(allKnown ? words : []);
  const flags = (found[0]?.common ?? []) as boolean[];
  words.forEach((word, index) => {
    if (flags[index] === true) common.add(word);
  });
  const perKind = kinds.map((kind, at) => {
    const counts = found.find((row) => Number(row.at) === at) ?? { at, rows: 0, sampled: 0, estimate: 0, averageLength: 0 };
    const averageLength = counts.averageLength ?? averages.get(keyOf(kind))?.averageLength ?? 0;
    if (counts.averageLength !== null) averages.set(keyOf(kind), { rows: counts.rows, averageLength });
    return { kind, counts, averageLength };
  });
  // In the kinds' order (the statement's rows come in any order).
  const countsByKind = perKind.map(({ counts }) => counts);
  learnCommonWords(known, plain, countsByKind);
  const weightsOf = (ranking: readonly string[]) =>
    perKind.flatMap(({ kind, counts, averageLength }) =>
      ranking.map((word, position) => {
        const holding = holdingOf(counts, plain.indexOf(word));
        const rows = counts.rows <= STATISTICS_ROWS ? counts.rows : Math.max(counts.rows, counts.estimate);
        return { kind: kind.kind, position, word, idf: bm25Idf(rows, holding), averageLength, holding };
      }),
    );
  return { common, weightsOf };
}

/**
 * Teaches `known` what the statement counted: the rows each word's population count read, and per
 * kind the most rows a count showed holding the word (its share of the population's rows, or its
 * own count `c`; -1 or null where not counted). Both stop one row past COMMON_WORD_ROWS, so a
 * count past it is exact evidence.
 */
function learnCommonWords(known: KnownCommon, plain: readonly string[], countsByKind: readonly KindCounts[]): void {
  const kindRows = countsByKind.map((counts) =>
    plain.map((_, index) => Math.max(Number(counts.kindRows?.[index] ?? -1), Number(counts[`c${index}`] ?? -1))),
  );
  known.learn({ words: plain, populationRows: countsByKind[0]?.populationRows, kindRows });
}

/**
 * How many rows of an index hold the word counted at `index`: exact when the whole index was read
 * or the word is rare; else scaled from the sample (a word the sample showed common was not counted: -1).
 */
function holdingOf(counts: KindCounts, index: number): number {
  const inSample = Number(counts[`s${index}`] ?? 0);
  if (counts.rows <= STATISTICS_ROWS) return inSample;
  const counted = Number(counts[`c${index}`] ?? 0);
  if (counted >= 0 && counted <= COMMON_WORD_ROWS) return counted;
  const rows = Math.max(counts.rows, counts.estimate);
  return Math.max(counted, (rows * inSample) / Math.max(counts.sampled, 1));
}

/**
 * The weights a bounded search ranks by when every word is common: the least common word's alone,
 * as SQLite ranks it (store-sqlite search-plan.ts: bm25 would walk every common word's list there).
 */
export function leastCommonOnly(weights: readonly WordWeight[]): readonly WordWeight[] {
  const holding = new Map<number, number>();
  for (const weight of weights) holding.set(weight.position, (holding.get(weight.position) ?? 0) + weight.holding);
  if (holding.size < 2 || [...holding.values()].some((count) => count <= COMMON_WORD_ROWS)) return weights;
  let least = { position: -1, holding: Number.POSITIVE_INFINITY };
  for (const [position, count] of holding) if (count < least.holding) least = { position, holding: count };
  return weights.filter((weight) => weight.position === least.position);
}
