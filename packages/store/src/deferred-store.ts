// A LedgerStore whose engine is opened on first use. openLedgerStore returns one, so opening by
// location stays synchronous while the engine's package is loaded with a dynamic import: the first
// operation waits for the engine, every later one goes straight to it.

import { StorageError } from '@agent-ledger/core';
import { CLOSED, type LedgerStore, STORE_OPERATION_NAMES, type StoreOperations } from './ledger-store.ts';

export interface DeferredStoreOptions {
  engine: string;
  /** Where the ledger lives, as it may be shown (no password). */
  location: string;
  readonly: boolean;
  /** Loads the engine and opens the store; called once, on the first operation. */
  open(): Promise<LedgerStore>;
}

type AnyOperation = (...args: unknown[]) => Promise<unknown>;

export function deferredStore(options: DeferredStoreOptions): LedgerStore {
  let opened: LedgerStore | null = null;
  let opening: Promise<LedgerStore> | null = null;
  let closed = false;
  const target = (): LedgerStore | Promise<LedgerStore> => {
    if (opened) return opened;
    if (closed) return Promise.reject(new StorageError(CLOSED));
    opening ??= options.open().then((store) => {
      opened = store;
      return store;
    });
    return opening;
  };
  const operations: Record<string, AnyOperation> = {};
  for (const name of STORE_OPERATION_NAMES) {
    operations[name] = (...args) => {
      const store = target();
      if (store instanceof Promise) return store.then((ready) => (ready[name] as AnyOperation)(...args));
      return (store[name] as AnyOperation)(...args);
    };
  }
  return {
    ...(operations as unknown as StoreOperations),
    engine: options.engine,
    location: options.location,
    readonly: options.readonly,
    transaction: async (work) => (await target()).transaction(work),
    close: async () => {
      closed = true;
      // A store never used was never opened: closing it opens nothing.
      const pending = opened ?? (await opening?.catch(() => null));
      await pending?.close();
    },
  };
}
