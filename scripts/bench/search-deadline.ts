// A deadline for one search call. On a long history one call can run for minutes; the benchmark cuts such a call off
// and reports it as cut. The ledgers are handed a store whose operations check the clock before they run, so a call
// stops at its next store operation (one operation is never interrupted: the engine runs it whole).

import type { LedgerStore } from '../../packages/store/src/index.ts';
import { nowMilliseconds } from './measure.ts';

export class DeadlineExceededError extends Error {}

export interface DeadlineGuard {
  /** The same store, its operations wrapped: each checks the deadline before it runs. */
  store: LedgerStore;
  /** Runs `work`, cutting it off (DeadlineExceededError) at the first store operation it calls after `milliseconds`. */
  within<T>(milliseconds: number, work: () => Promise<T>): Promise<T>;
  /** Full-text store operations (turn and event searches) called since the guard was made. */
  searchOperations(): number;
}

const SEARCH_OPERATIONS = new Set<PropertyKey>(['searchTurns', 'searchEvents', 'countTurnMatches']);

export function guardWithDeadline(store: LedgerStore): DeadlineGuard {
  let deadline = Number.POSITIVE_INFINITY;
  let searchOperations = 0;
  const check = () => {
    if (nowMilliseconds() > deadline) throw new DeadlineExceededError('the search call ran past its deadline');
  };
  // The store's own operations are wrapped in place: the same object, so whatever the ledgers keep per store
  // (the ledgers built on it before and after) sees one store. Outside `within` the check never fires.
  const operations = store as unknown as Record<string, unknown>;
  for (const key of Object.keys(operations)) {
    const value = operations[key];
    if (typeof value !== 'function') continue;
    const operation = value as (...parameters: unknown[]) => unknown;
    operations[key] = (...parameters: unknown[]) => {
      check();
      if (SEARCH_OPERATIONS.has(key)) searchOperations += 1;
      return operation.apply(store, parameters);
    };
  }
  return {
    store,
    async within(milliseconds, work) {
      deadline = nowMilliseconds() + milliseconds;
      try {
        return await work();
      } finally {
        deadline = Number.POSITIVE_INFINITY;
      }
    },
    searchOperations: () => searchOperations,
  };
}
