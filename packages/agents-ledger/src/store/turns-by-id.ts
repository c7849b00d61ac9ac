// Turn rows by id, for readers that hold a list of ids (a topic's members, a forest's nodes).

import type { StoredTurn, StoreOperations } from '@agent-ledger/store';

/** The rows of `ids` that exist, by id (missing ids are simply absent). */
export function readTurnRowsById(store: StoreOperations, ids: readonly string[]): Promise<Map<string, StoredTurn>> {
  return ids.length === 0 ? Promise.resolve(new Map()) : store.getTurns(ids);
}
