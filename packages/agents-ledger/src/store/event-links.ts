// The links between turns and the events they cite. Written with the turn in the same store
// operation; read in one store read per page of turns.

import { EventNotFoundError, type Turn } from '@agent-ledger/core';
import type { StoredTurn, StoreOperations } from '@agent-ledger/store';
import { turnFromRow } from './row-mapping.ts';

/** Throws EventNotFoundError for the first id that names no stored event. */
export async function requireEvents(store: StoreOperations, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  const missing = await store.missingEventIds(eventIds);
  if (missing.length > 0) throw new EventNotFoundError(missing[0] as string);
}

/** Rows to turns, each with the events it cites: one read for the whole list. */
export async function turnsWithEventLinks(store: StoreOperations, rows: readonly StoredTurn[]): Promise<Turn[]> {
  const normal = rows.filter((row) => row.turnType === 'normal').map((row) => row.id);
  const links = normal.length > 0 ? await store.eventIdsByTurn(normal) : new Map<string, string[]>();
  return rows.map((row) => turnFromRow(row, links.get(row.id) ?? []));
}
