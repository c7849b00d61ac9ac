// A store whose every operation call is counted by name: what the store-call tests read to show an
// operation's calls do not grow with the history or the number of matches.

import type { StoreOperations } from '@agent-ledger/store';

export function countingStore(store: StoreOperations, calls: Map<string, number>): StoreOperations {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'close') return value;
      return (...args: unknown[]) => {
        calls.set(property, (calls.get(property) ?? 0) + 1);
        return (value as (...inner: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
