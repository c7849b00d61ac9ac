// How the PostgreSQL store's query modules reach the server: an executor that runs one statement,
// and runs a unit of work atomically. Outside a transaction the executor is the pool (each
// statement on whichever connection is free; `atomically` checks one out for BEGIN … COMMIT);
// inside `store.transaction` it is the transaction's own connection (`atomically` is a SAVEPOINT).
// A statement run on every append or context read is a NamedStatement: node-postgres prepares it
// once per connection and then only binds and executes it, sparing the server a parse and a plan.

import { StorageError } from '@agent-ledger/core';
import type pg from 'pg';

/** A statement prepared once per connection under its name (the name must be unique to its text). */
export interface NamedStatement {
  name: string;
  text: string;
}

export type Statement = string | NamedStatement;

/** A hot statement, prepared per connection: the name is `nexus_` and `name`. */
export function named(name: string, text: string): NamedStatement {
  return { name: `nexus_${name}`, text };
}

function queryConfig(sql: Statement, parameters: readonly unknown[]): pg.QueryConfig {
  return typeof sql === 'string' ? { text: sql, values: parameters as unknown[] } : { ...sql, values: parameters as unknown[] };
}

export interface PgExecutor {
  /** Runs one statement with bound parameters ($1, $2, …) and returns its rows. */
  query<Row = Record<string, unknown>>(sql: Statement, parameters?: readonly unknown[]): Promise<Row[]>;
  /** Runs one statement and returns how many rows it changed. */
  execute(sql: Statement, parameters?: readonly unknown[]): Promise<number>;
  /** Runs `work` all or nothing: a transaction of its own, or a savepoint inside the current one. */
  atomically<T>(work: (executor: PgExecutor) => Promise<T>): Promise<T>;
  /** True inside `store.transaction` (the executor is the transaction's connection). */
  readonly inTransaction: boolean;
}

let savepoints = 0;

/** The executor of one checked-out connection that holds an open transaction. */
function transactionExecutor(client: pg.PoolClient, isOpen: () => boolean = () => true): PgExecutor {
  const guard = () => {
    if (!isOpen()) throw new StorageError('This transaction handle was used after its transaction ended.');
  };
  const executor: PgExecutor = {
    inTransaction: true,
    async query<Row>(sql: Statement, parameters: readonly unknown[] = []) {
      guard();
      return (await client.query(queryConfig(sql, parameters))).rows as Row[];
    },
    async execute(sql, parameters = []) {
      guard();
      return (await client.query(queryConfig(sql, parameters))).rowCount ?? 0;
    },
    async atomically(work) {
      guard();
      savepoints += 1;
      const name = `nexus_${savepoints}`;
      await client.query(`SAVEPOINT ${name}`);
      try {
        const result = await work(executor);
        await client.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw error;
      }
    },
  };
  return executor;
}

/** Runs `work` in a transaction on a connection checked out of the pool. */
export async function inPoolTransaction<T>(pool: pg.Pool, work: (executor: PgExecutor) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let open = true;
  // A connection whose ROLLBACK failed is in an unknown state: destroy it instead of pooling it.
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(transactionExecutor(client, () => open));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    open = false;
    client.release(broken);
  }
}

/** The executor of the pool itself: each statement on a free connection, in autocommit. */
export function poolExecutor(pool: pg.Pool): PgExecutor {
  return {
    inTransaction: false,
    async query<Row>(sql: Statement, parameters: readonly unknown[] = []) {
      return (await pool.query(queryConfig(sql, parameters))).rows as Row[];
    },
    async execute(sql, parameters = []) {
      return (await pool.query(queryConfig(sql, parameters))).rowCount ?? 0;
    },
    atomically: (work) => inPoolTransaction(pool, work),
  };
}
