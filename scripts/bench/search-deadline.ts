// A deadline for one search call. The resolved view reads page after page of raw matches until its page of hits is full,
// and on a long history one call can run for minutes; the benchmark cuts such a call off and reports it as cut. The
// ledger is handed a database whose statements check the clock before they run, so a call stops at its next page.

import type { LedgerDatabase } from '../../packages/db/src/index.ts';
import { nowMilliseconds } from './measure.ts';

export class DeadlineExceededError extends Error {}

export interface DeadlineGuard {
  /** The same connection; every statement prepared through it checks the deadline before it runs. */
  database: LedgerDatabase;
  /** Runs `work`, cutting it off (DeadlineExceededError) at the first statement it runs after `milliseconds`. */
  within<T>(milliseconds: number, work: () => Promise<T>): Promise<T>;
  /** Full-text (MATCH) statements run since the guard was made: pages read, and probes for any match. */
  matchStatements(): number;
}

const CHECKED_METHODS = new Set<PropertyKey>(['all', 'get', 'iterate', 'run']);

/** Forwards every property to `target`, methods bound to it (the driver's native methods check their receiver). */
function forward<T extends object>(target: T, override: (key: PropertyKey) => unknown): T {
  return new Proxy(target, {
    get(object, key) {
      const replaced = override(key);
      if (replaced !== undefined) return replaced;
      const value = Reflect.get(object, key, object) as unknown;
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

export function guardWithDeadline(database: LedgerDatabase): DeadlineGuard {
  let deadline = Number.POSITIVE_INFINITY;
  let matchStatements = 0;
  const check = () => {
    if (nowMilliseconds() > deadline) throw new DeadlineExceededError('the search call ran past its deadline');
  };
  const sqlite = forward(database.sqlite, (key) =>
    key === 'prepare'
      ? (source: string) => {
          const statement = database.sqlite.prepare(source);
          const isMatch = source.includes(' MATCH ');
          return forward(statement, (method) => {
            if (!CHECKED_METHODS.has(method)) return undefined;
            const original = Reflect.get(statement, method, statement) as (...parameters: unknown[]) => unknown;
            return (...parameters: unknown[]) => {
              check();
              if (isMatch) matchStatements += 1;
              return original.apply(statement, parameters);
            };
          });
        }
      : undefined,
  );
  return {
    database: { ...database, sqlite },
    async within(milliseconds, work) {
      deadline = nowMilliseconds() + milliseconds;
      try {
        return await work();
      } finally {
        deadline = Number.POSITIVE_INFINITY;
      }
    },
    matchStatements: () => matchStatements,
  };
}
