// The words a store has seen common, kept per database executor so that a search does not count
// them again (search-commonness.ts counts each word up to COMMON_WORD_ROWS + 1 rows; a common word
// costs 1,001 heap rows a search). Exact because turns and events are never deleted and a row's
// search_vector is a generated column: a word once held by more than COMMON_WORD_ROWS rows of a
// population stays so. Only counts read outside a transaction teach (search-statistics.ts decides
// what a count shows); inside one the rows counted may still roll back.

import { COMMON_WORD_ROWS } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import type { SearchSource } from './search-source.ts';

/** What one statistics statement showed, each list in the words' order. */
export interface CommonEvidence {
  /** The plain words (without NUL), as bound in the statement. */
  words: readonly string[];
  /** How many rows of the population each word's count read (undefined: not counted). */
  populationRows?: readonly (number | null)[];
  /** Per kind (in the source's order), how many rows of that kind hold each word, where counted. */
  kindRows: ReadonlyArray<readonly (number | null)[] | undefined>;
}

/** Which of a source's words are known common, and a way to learn more. */
export interface KnownCommon {
  /** True when the word is held by more than COMMON_WORD_ROWS rows of the source's population. */
  inPopulation(word: string): boolean;
  /** True when the word is held by more than COMMON_WORD_ROWS rows of the kind at `at`. */
  inKind(at: number, word: string): boolean;
  /** Keeps what a statement showed (nothing when the executor holds a transaction). */
  learn(evidence: CommonEvidence): void;
}

/** Sets of words known common, by population or kind key, per executor (the pool's lives as long as the store). */
const knownCommon = new WeakMap<PgExecutor, Map<string, Set<string>>>();

function setsOf(db: PgExecutor): Map<string, Set<string>> {
  let sets = knownCommon.get(db);
  if (!sets) {
    sets = new Map();
    knownCommon.set(db, sets);
  }
  return sets;
}

/** A population is its table and the kinds it holds (the turn type searched, or both, or events). */
const populationKey = (source: SearchSource) =>
  `${source.table}\u0000population\u0000${source.kinds.map((kind) => kind.kind).join('+')}`;
const kindKey = (source: SearchSource, at: number) => `${source.table}\u0000kind\u0000${source.kinds[at]?.kind}`;

const isCommon = (count: number | null | undefined) => count !== null && count !== undefined && Number(count) > COMMON_WORD_ROWS;

/**
 * The words known common for `source` on `db`. A transaction's executor knows none and learns
 * none: its counts may include rows it rolls back, and its executor is new per transaction anyway.
 */
export function knownCommonWords(db: PgExecutor, source: SearchSource): KnownCommon {
  if (db.inTransaction) return { inPopulation: () => false, inKind: () => false, learn: () => undefined };
  const sets = setsOf(db);
  const setOf = (key: string) => {
    let set = sets.get(key);
    if (!set) {
      set = new Set();
      sets.set(key, set);
    }
    return set;
  };
  const inKind = (at: number, word: string) => sets.get(kindKey(source, at))?.has(word) ?? false;
  return {
    // A kind's rows are among its population's (search-source.ts): common in one kind, common in the population.
    inPopulation: (word) =>
      (sets.get(populationKey(source))?.has(word) ?? false) || source.kinds.some((_, at) => inKind(at, word)),
    inKind,
    learn: ({ words, populationRows, kindRows }) => {
      words.forEach((word, index) => {
        if (isCommon(populationRows?.[index])) setOf(populationKey(source)).add(word);
        kindRows.forEach((counts, at) => {
          if (isCommon(counts?.[index])) setOf(kindKey(source, at)).add(word);
        });
      });
    },
  };
}
