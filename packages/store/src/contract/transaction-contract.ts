// The transaction part of the store contract: all or nothing, one handle per transaction (the
// outer store is refused inside it), transactions never interleave, and operations issued outside
// a transaction wait for it rather than seeing half of it.

import { StorageError } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import type { LedgerStore } from '../index.ts';
import { sessionRecord } from './ledger-rows.ts';
import { type OpenStore, openPerCase } from './open-per-case.ts';
import type { StoreUnderTest } from './store-under-test.ts';

export function transactionContract(subject: StoreUnderTest): void {
  describe('transactions', () => {
    const open = openPerCase(subject);
    transactionOutcomeCases(open);
    transactionHandleCases(open);
    transactionIsolationCases(open);
  });
}

/** What the work of a transaction leaves: all of its writes, or none. */
function transactionOutcomeCases(open: OpenStore): void {
  it('commits every write of the work, and returns what the work returned', async () => {
    const store = await open();
    const result = await store.transaction(async (tx) => {
      await tx.insertSession(sessionRecord('s-a'));
      await tx.insertSession(sessionRecord('s-b'));
      return 'done';
    });
    expect(result).toBe('done');
    expect((await store.getSession('s-a'))?.id).toBe('s-a');
    expect((await store.getSession('s-b'))?.id).toBe('s-b');
  });

  it('writes nothing when the work throws, and rethrows what it threw', async () => {
    const store = await open();
    const failure = new Error('the work failed');
    await expect(
      store.transaction(async (tx) => {
        await tx.insertSession(sessionRecord('s-a'));
        expect((await tx.getSession('s-a'))?.id).toBe('s-a');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await store.getSession('s-a')).toBeUndefined();
  });
}

/** Which handles a transaction accepts: its own, while it runs, on an open store. */
function transactionHandleCases(open: OpenStore): void {
  it('refuses the outer store inside a transaction: every read and write goes through the handle', async () => {
    const store = await open();
    await expect(
      store.transaction(async (tx) => {
        await tx.insertSession(sessionRecord('s-a'));
        await store.getSession('s-a');
      }),
    ).rejects.toBeInstanceOf(StorageError);
    expect(await store.getSession('s-a')).toBeUndefined();
  });

  it('refuses every operation once the store is closed, with a StorageError', async () => {
    const store = await open();
    await store.insertSession(sessionRecord('s-a'));
    await store.close();
    await expect(store.getSession('s-a')).rejects.toBeInstanceOf(StorageError);
    await expect(store.transaction(async () => 'never')).rejects.toBeInstanceOf(StorageError);
    await store.close();
  });

  it('refuses a handle used after its transaction ended', async () => {
    const store = await open();
    let leaked: Parameters<Parameters<LedgerStore['transaction']>[0]>[0] | undefined;
    await store.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked?.insertSession(sessionRecord('late'))).rejects.toBeInstanceOf(StorageError);
    expect(await store.getSession('late')).toBeUndefined();
  });
}

/** Transactions never interleave, with each other or with operations outside them. */
function transactionIsolationCases(open: OpenStore): void {
  it('runs concurrent transactions one after another: read-modify-write never loses an update', async () => {
    const store = await open();
    await store.insertSession(sessionRecord('counter', { contextWindow: 1000 }));
    const increments = 12;
    await Promise.all(
      Array.from({ length: increments }, () =>
        store.transaction(async (tx) => {
          const session = await tx.getSession('counter');
          if (!session) throw new Error('missing');
          // Yield between the read and the write: another transaction must not get in here.
          await new Promise((resolve) => setTimeout(resolve, 1));
          await tx.updateSessionSettings('counter', {
            contextWindow: session.contextWindow + 1,
            reserveTokens: session.reserveTokens,
            keepRecentTokens: session.keepRecentTokens,
            calibration: session.calibration,
          });
        }),
      ),
    );
    expect((await store.getSession('counter'))?.contextWindow).toBe(1000 + increments);
  });

  it('an operation issued outside a transaction sees it whole: before it began or after it committed', async () => {
    const store = await open();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const inside = new Promise<void>((resolve) => {
      started = resolve;
    });
    const writing = store.transaction(async (tx) => {
      await tx.insertSession(sessionRecord('s-a'));
      started();
      await gate;
      await tx.insertSession(sessionRecord('s-b'));
    });
    await inside;
    const reading = Promise.all([store.getSession('s-a'), store.getSession('s-b')]);
    release();
    await writing;
    const [a, b] = await reading;
    // Both or neither: never s-a without s-b.
    expect(Boolean(a)).toBe(Boolean(b));
  });
}
