// Every case of the contract starts from a fresh, empty store it opens itself; the part it belongs
// to closes whatever the case opened once the case is over, passed or failed.

import { afterEach } from 'vitest';
import type { LedgerStore } from '../index.ts';
import type { StoreUnderTest } from './store-under-test.ts';

/** Opens a fresh store for the running case (a case may open several). */
export type OpenStore = () => Promise<LedgerStore>;

/** Call inside a part's `describe`: the stores its cases open are closed after each case. */
export function openPerCase(subject: StoreUnderTest): OpenStore {
  const opened: LedgerStore[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  return async () => {
    const store = await subject.open();
    opened.push(store);
    return store;
  };
}
