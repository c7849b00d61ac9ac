// SQLite has one connection per store, so a transaction that awaits between statements must keep
// every other caller of the same store out until it ends: operations issued meanwhile wait for it,
// and an operation issued on the outer store from inside the transaction (instead of through its
// handle) is refused, since on a pooled engine it would run on another connection.

import { AsyncLocalStorage } from 'node:async_hooks';
import { StorageError } from '@agent-ledger/core';

export class WriteLock {
  private queue: Promise<void> = Promise.resolve();
  private holders = 0;
  private readonly inside = new AsyncLocalStorage<true>();

  get held(): boolean {
    return this.holders > 0;
  }

  /** Resolves once no transaction holds the lock (immediately when none does). */
  async whenFree(): Promise<void> {
    if (this.inside.getStore())
      throw new StorageError(
        'A store operation was called on the store itself inside store.transaction(): use the transaction handle (tx) for every read and write in it.',
      );
    while (this.holders > 0) await this.queue;
  }

  /** Runs `work` holding the lock; callers queue in order. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.inside.getStore())
      throw new StorageError('store.transaction() was called inside another transaction: pass the work to the outer one.');
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.holders += 1;
    try {
      return await this.inside.run(true, work);
    } finally {
      this.holders -= 1;
      release();
    }
  }
}
