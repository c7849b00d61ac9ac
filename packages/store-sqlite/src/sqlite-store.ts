// The SQLite store: one better-sqlite3 connection, the schema's migrations, and the query modules
// of each area composed into one LedgerStore. Each query module is synchronous (better-sqlite3 is);
// this file makes them the async interface every engine shares, and gives transactions their
// handle.

import { StorageError } from '@agent-ledger/core';
import { CLOSED, type LedgerStore, type StoreOperations } from '@agent-ledger/store';
import { fromDriverError } from './driver-errors.ts';
import { eventQueries } from './event-queries.ts';
import { forestQueries } from './forest-queries.ts';
import { importQueries } from './import-queries.ts';
import { leaseQueries } from './lease-queries.ts';
import { lineStartQueries } from './line-start.ts';
import { maintenanceQueries } from './maintenance-queries.ts';
import { openDatabase } from './open-database.ts';
import type { OpenSqliteStoreOptions } from './open-options.ts';
import { searchQueries } from './search-queries.ts';
import { sessionQueries } from './session-queries.ts';
import { createConnection, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';
import { turnChainQueries } from './turn-chain-queries.ts';
import { turnQueries } from './turn-queries.ts';
import { WriteLock } from './write-lock.ts';

export type { OpenSqliteStoreOptions } from './open-options.ts';

function synchronousOperations(connection: SqliteConnection): Synchronous<StoreOperations> {
  return {
    ...sessionQueries(connection),
    ...turnQueries(connection),
    ...lineStartQueries(connection),
    ...eventQueries(connection),
    ...searchQueries(connection),
    ...forestQueries(connection),
    ...importQueries(connection),
    ...leaseQueries(connection),
    ...maintenanceQueries(connection),
    ...turnChainQueries(connection),
  } as Synchronous<StoreOperations>;
}

type AnyOperation = (...args: unknown[]) => unknown;

/** The async face of the synchronous operations; `before` runs first (waiting for the lock, say). */
function asynchronous(operations: Synchronous<StoreOperations>, before: () => Promise<void> | null): StoreOperations {
  const wrapped: Record<string, AnyOperation> = {};
  for (const [name, operation] of Object.entries(operations) as Array<[string, AnyOperation]>) {
    const call = (args: unknown[]) => {
      try {
        return Promise.resolve(operation(...args));
      } catch (error) {
        return Promise.reject(fromDriverError(error));
      }
    };
    wrapped[name] = (...args: unknown[]) => {
      let waiting: Promise<void> | null;
      try {
        waiting = before();
      } catch (error) {
        return Promise.reject(error);
      }
      return waiting ? waiting.then(() => call(args)) : call(args);
    };
  }
  return wrapped as unknown as StoreOperations;
}

export function openSqliteStore(options: OpenSqliteStoreOptions): LedgerStore {
  const database = openDatabase(options);
  const connection = createConnection(database.sqlite, database.db);
  const operations = synchronousOperations(connection);
  const lock = new WriteLock();
  // Outside a transaction an operation runs at once, unless a transaction is open: then it waits.
  let closed = false;
  const store = asynchronous(operations, () => {
    if (closed) throw new StorageError(CLOSED);
    return lock.held ? lock.whenFree() : null;
  });
  const ledgerStore: LedgerStore = {
    ...store,
    engine: 'sqlite',
    location: options.path,
    readonly: options.readonly ?? false,
    transaction: (work) =>
      lock.run(async () => {
        if (closed) throw new StorageError(CLOSED);
        let open = true;
        const tx = asynchronous(operations, () => {
          if (!open) throw new StorageError('This transaction handle was used after its transaction ended.');
          return null;
        });
        try {
          connection.statement('BEGIN IMMEDIATE').run();
        } catch (error) {
          throw fromDriverError(error);
        }
        try {
          const result = await work(tx);
          connection.statement('COMMIT').run();
          return result;
        } catch (error) {
          if (database.sqlite.inTransaction) connection.statement('ROLLBACK').run();
          throw fromDriverError(error);
        } finally {
          open = false;
        }
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      await lock.whenFree();
      database.close();
    },
  };
  return ledgerStore;
}
