// The PostgreSQL store: a node-postgres pool, the schema's migrations (applied once under an
// advisory lock, however many processes open the store at once), and the query modules of each
// area composed into one LedgerStore. Outside a transaction an operation runs on any free
// connection; `transaction(work)` checks one out and hands `work` an executor bound to it.

import { AsyncLocalStorage } from 'node:async_hooks';
import { StorageError } from '@agent-ledger/core';
import { CLOSED, displayLocation, type LedgerStore, type StoreOperations } from '@agent-ledger/store';
import pg from 'pg';
import { eventQueries } from './event-queries.ts';
import { forestQueries } from './forest-queries.ts';
import { importQueries } from './import-queries.ts';
import { leaseQueries } from './lease-queries.ts';
import { lineStartQueries } from './line-start.ts';
import { maintenanceQueries } from './maintenance-queries.ts';
import { migratePostgres } from './migrate.ts';
import { fromPostgresError } from './pg-errors.ts';
import { inPoolTransaction, type PgExecutor, poolExecutor } from './pg-executor.ts';
import { searchQueries } from './search-queries.ts';
import { turnChainQueries } from './turn-chain-queries.ts';
import { turnQueries } from './turn-queries.ts';

export interface OpenPostgresStoreOptions {
  /** Open without writing anything (no migrations); the ledger must exist. */
  readonly?: boolean;
  /** Refuse with DatabaseNotFoundError when the database holds no ledger yet. */
  mustExist?: boolean;
  /** Connections in the pool (default 10). */
  poolSize?: number;
}

function operationsOf(executor: PgExecutor): StoreOperations {
  return {
    ...turnQueries(executor),
    ...lineStartQueries(executor),
    ...eventQueries(executor),
    ...searchQueries(executor),
    ...forestQueries(executor),
    ...importQueries(executor),
    ...leaseQueries(executor),
    ...maintenanceQueries(executor),
    ...turnChainQueries(executor),
  };
}

type AnyOperation = (...args: unknown[]) => Promise<unknown>;

/** Each operation first runs `before` (readiness, misuse checks), and converts driver errors. */
function guarded(operations: StoreOperations, before: () => Promise<void>): StoreOperations {
  const wrapped: Record<string, AnyOperation> = {};
  for (const [name, operation] of Object.entries(operations) as Array<[string, AnyOperation]>) {
    wrapped[name] = async (...args) => {
      await before();
      try {
        return await operation(...args);
      } catch (error) {
        throw fromPostgresError(error);
      }
    };
  }
  return wrapped as unknown as StoreOperations;
}

export function openPostgresStore(url: string, options: OpenPostgresStoreOptions = {}): LedgerStore {
  // JIT off for the store's sessions: every statement is bounded (LIMITs, index probes), yet at a
  // million turns the planner's estimates put the search statistics statement over jit_above_cost,
  // and compiling it took ~99 ms of a 100 ms search. A URL's own `options` replace this.
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, options: '-c jit=off' });
  // An idle connection the server dropped must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  const location = displayLocation(url);
  const ready = migratePostgres(pool, { readonly: options.readonly ?? false, mustExist: options.mustExist ?? false, location });
  ready.catch(() => undefined);
  const inside = new AsyncLocalStorage<true>();
  let closed = false;
  const outer = guarded(operationsOf(poolExecutor(pool)), async () => {
    if (closed) throw new StorageError(CLOSED);
    if (inside.getStore())
      throw new StorageError(
        'A store operation was called on the store itself inside store.transaction(): use the transaction handle (tx) for every read and write in it.',
      );
    await ready;
  });
  return {
    ...outer,
    engine: 'postgres',
    location,
    readonly: options.readonly ?? false,
    transaction: async (work) => {
      if (closed) throw new StorageError(CLOSED);
      await ready;
      if (inside.getStore())
        throw new StorageError('store.transaction() was called inside another transaction: pass the work to the outer one.');
      try {
        return await inPoolTransaction(pool, (executor) =>
          inside.run(true, () => work(guarded(operationsOf(executor), async () => {}))),
        );
      } catch (error) {
        throw fromPostgresError(error);
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await ready.catch(() => undefined);
      await pool.end();
    },
  };
}
