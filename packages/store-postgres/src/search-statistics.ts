// What bm25 needs to know about the rows a PostgreSQL search ranks among, read as FTS5 keeps it
// for SQLite: how many rows each index holds (turns and compaction summaries apart, as SQLite's two
// indexes; events), their average length, and how many hold each ranking word, over the whole table
// and never the search's filters (FTS5's bm25 reads its whole index). The bm25 itself is
// @agent-ledger/store's (search-bm25.ts); search-ranking.ts sums it in SQL.

import { bm25Idf, COMMON_WORD_ROWS } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { SEARCH_CONFIGURATION } from './schema.ts';
import type { RankedKind, SearchPlan, SearchSource } from './search-plan.ts';
import { SqlParameters } from './sql-parameters.ts';

/**
 * An index of up to this many rows is read whole, and its statistics are exact (every
 * conversation of the evaluation sets). Beyond, they are estimated from its first SAMPLE_ROWS
 * rows: the average length is theirs, the row count is PostgreSQL's estimate of the table
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
  [count: string]: number | null;
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
  words: readonly string[];
  /** The row count the average length below was read at (-1: none): the same count skips reading it again. */
  knownRows: number;
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

/** One row of counts for one kind, as SQL (its CTEs named by `at`, the kind's place in the statement). */
function kindCounts({ table, alias, kind, words, knownRows }: KindStatement, at: number, parameters: SqlParameters): string {
  const where = kind.rows(parameters);
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  const [counted, sample] = [`counted${at}`, `sample${at}`];
  const estimate = `(SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = '${table}'::regclass)::float8`;
  const wordColumns = words.flatMap((word, index) => {
    const tsquery = `phraseto_tsquery('${SEARCH_CONFIGURATION}'::regconfig, ${parameters.add(word)})`;
    const holding = [...where, `${alias}.search_vector @@ ${tsquery}`].join(' AND ');
    const inSample = `(SELECT count(*) FROM ${sample} s WHERE s.v @@ ${tsquery})::float8`;
    // Counted only where the count is used and cheap: a whole index's sample is exact already, and
    // a word the sample shows common would fill a bitmap of all its rows to count 1,001 of them
    // (-1: not counted, scaled from the sample). PostgreSQL runs a CASE branch's subquery only when taken.
    const common = `greatest(c.rows, ${estimate}) * ${inSample} / greatest((SELECT count(*) FROM ${sample}), 1) > ${COMMON_WORD_ROWS}`;
    return [
      `${inSample} AS s${index}`,
      `(SELECT CASE WHEN c.rows <= ${STATISTICS_ROWS} OR ${common} THEN -1 ELSE (SELECT count(*) FROM ` +
        `(SELECT 1 FROM ${table} ${alias} WHERE ${holding} LIMIT ${COMMON_WORD_ROWS + 1}) w) END FROM ${counted} c)::float8 AS c${index}`,
    ];
  });
  // The rows counted first, unread (one more than STATISTICS_ROWS tells a large index), then the sample read.
  return (
    `(WITH ${counted} AS MATERIALIZED (SELECT count(*)::float8 AS rows FROM (SELECT 1 FROM ${table} ${alias}${filter} ` +
    `LIMIT ${STATISTICS_ROWS + 1}) x), ${sample} AS MATERIALIZED (SELECT ${alias}.search_vector AS v FROM ${table} ${alias}${filter} ` +
    `LIMIT (SELECT CASE WHEN rows > ${STATISTICS_ROWS} THEN ${SAMPLE_ROWS} ELSE ${STATISTICS_ROWS} END FROM ${counted})) ` +
    `SELECT ${at} AS at, (SELECT rows FROM ${counted}) AS rows, (SELECT count(*) FROM ${sample})::float8 AS sampled, ` +
    `${estimate} AS estimate, ` +
    `(SELECT CASE WHEN (SELECT rows FROM ${counted}) = ${parameters.add(knownRows)} THEN NULL ELSE ` +
    `(SELECT coalesce(avg(${VECTOR_LENGTH('s.v')}), 0) FROM ${sample} s) END)::float8 AS "averageLength"` +
    `${wordColumns.map((column) => `, ${column}`).join('')})`
  );
}

/**
 * The weight of each of `words` in each index: bm25's idf and the index's average length. Exact
 * while an index holds at most STATISTICS_ROWS rows; estimated beyond (STATISTICS_ROWS).
 */
export async function wordWeights(
  db: PgExecutor,
  { table, alias, kinds, words }: { table: string; alias: string; kinds: readonly RankedKind[]; words: readonly string[] },
): Promise<WordWeight[]> {
  // Every kind in one statement: one round trip per search.
  const parameters = new SqlParameters();
  const averages = averagesOf(db);
  const keyOf = (kind: RankedKind) => `${table}\u0000${kind.kind}`;
  const selects = kinds.map((kind, at) =>
    kindCounts({ table, alias, kind, words, knownRows: averages.get(keyOf(kind))?.rows ?? -1 }, at, parameters),
  );
  const found = await db.query<KindCounts>(selects.join(' UNION ALL '), parameters.values);
  const weights: WordWeight[] = [];
  for (const [at, kind] of kinds.entries()) {
    const counts = found.find((row) => Number(row.at) === at) ?? { at, rows: 0, sampled: 0, estimate: 0, averageLength: 0 };
    const averageLength = counts.averageLength ?? averages.get(keyOf(kind))?.averageLength ?? 0;
    if (counts.averageLength !== null) averages.set(keyOf(kind), { rows: counts.rows, averageLength });
    const whole = counts.rows <= STATISTICS_ROWS;
    const rows = whole ? counts.rows : Math.max(counts.rows, counts.estimate);
    words.forEach((word, position) => {
      const inSample = counts[`s${position}`] ?? 0;
      const counted = counts[`c${position}`] ?? 0;
      // Exact: the whole index was read, or the word is rare; else scaled from the sample (a word
      // the sample showed common was not counted: -1).
      const holding = whole
        ? inSample
        : counted >= 0 && counted <= COMMON_WORD_ROWS
          ? counted
          : Math.max(counted, (rows * inSample) / Math.max(counts.sampled, 1));
      weights.push({
        kind: kind.kind,
        position,
        word,
        idf: bm25Idf(rows, holding),
        averageLength,
        holding,
      });
    });
  }
  return weights;
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

/**
 * The weights a plan ranks by: its rank words' in each index the search reads (null: advanced
 * syntax, which has no words to weigh). A bounded search with every word common ranks by the least
 * common word (leastCommonOnly).
 */
export async function planWeights(db: PgExecutor, plan: SearchPlan, source: SearchSource): Promise<readonly WordWeight[] | null> {
  const words = plan.expression.rank.words;
  if (!words || words.length === 0) return null;
  const weights = await wordWeights(db, { table: source.table, alias: source.alias, kinds: source.kinds, words });
  return plan.newest !== null ? leastCommonOnly(weights) : weights;
}
