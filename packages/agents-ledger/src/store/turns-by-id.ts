// Turn rows by id, for readers that hold a list of ids (a topic's members, a forest's nodes).

import type { StoredTurn, StoreOperations } from '@agent-ledger/store';

/** The rows of `ids` that exist, by id (missing ids are simply absent). */
export function readTurnRowsById(store: StoreOperations, ids: readonly string[]): Promise<Map<string, StoredTurn>> {
  return ids.length === 0 ? Promise.resolve(new Map()) : store.getTurns(ids);
}

/** Turn rows by id, each read from the store once: one reader per ranking, so its steps share the rows. */
export interface TurnRowReader {
  read(ids: readonly string[]): Promise<Map<string, StoredTurn>>;
}

/** A reader that asks the store only for ids it has not read yet (missing ids are asked again). */
export function turnRowReader(store: StoreOperations): TurnRowReader {
  const known = new Map<string, StoredTurn>();
  return {
    async read(ids) {
      const unread = [...new Set(ids)].filter((id) => !known.has(id));
      for (const [id, row] of await readTurnRowsById(store, unread)) known.set(id, row);
      const rows = new Map<string, StoredTurn>();
      for (const id of ids) {
        const row = known.get(id);
        if (row) rows.set(id, row);
      }
      return rows;
    },
  };
}
