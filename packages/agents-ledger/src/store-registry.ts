// Which store each ledger object was made on, kept beside the ledger rather than on it, so the store
// is not part of the ledger's API (testing.ts hands it to tests).

import type { LedgerStore } from '@agent-ledger/store';

const stores = new WeakMap<object, LedgerStore>();

export function registerStore(ledger: object, store: LedgerStore): void {
  stores.set(ledger, store);
}

export function storeUnder(ledger: object): LedgerStore {
  const store = stores.get(ledger);
  if (!store) throw new Error('This object is not a ledger made by createAgentsLedger.');
  return store;
}
