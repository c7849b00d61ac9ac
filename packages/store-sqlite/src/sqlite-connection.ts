// One SQLite connection as the SQLite store's query modules see it: the driver handle, a statement
// cache (preparing costs more than running most of our statements) and drizzle over the same
// handle for the queries the builder expresses well.

import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from './schema.ts';

export interface SqliteConnection {
  readonly sqlite: Database.Database;
  readonly db: BetterSQLite3Database<typeof schema>;
  /** The prepared statement for `sql`, prepared once per connection. */
  statement(sql: string): Database.Statement;
}

/** An async store interface as a SQLite query module implements it: the same methods, synchronous. */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

/** Prepared statements kept per connection (least recently used dropped first). */
const STATEMENT_CACHE_SIZE = 256;

export function createConnection(sqlite: Database.Database, db: BetterSQLite3Database<typeof schema>): SqliteConnection {
  const statements = new Map<string, Database.Statement>();
  return {
    sqlite,
    db,
    statement(sql) {
      let statement = statements.get(sql);
      if (statement) {
        // Most recently used last, so the least recently used is the one dropped below.
        statements.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
      }
      statements.set(sql, statement);
      // Some statements vary in shape (IN lists, line scopes): bound the cache so a long-running
      // server does not keep every shape it ever saw.
      if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
      return statement;
    },
  };
}

/** SQLite limits bound parameters per statement: long id lists are read in chunks of this. */
const ID_CHUNK = 500;

export function chunks<T>(items: readonly T[], size = ID_CHUNK): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** `?, ?, ?` for n parameters. */
export function placeholders(count: number): string {
  return new Array(count).fill('?').join(', ');
}

export function parseJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : (value ?? null);
}

export function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
