// The links between turns and the events they cite (table turn_events). Written with the turn in
// the same transaction; read in one query per page of turns.

import { EventNotFoundError, type Turn } from '@nexus/core';
import { type AgentTurnRow, events, type LedgerDrizzle, turnEvents } from '@nexus/db';
import { inArray } from 'drizzle-orm';
import { turnFromRow } from './row-mapping.ts';

/** Throws EventNotFoundError for the first id that names no stored event. */
export function requireEvents(db: LedgerDrizzle, eventIds: readonly string[]): void {
  if (eventIds.length === 0) return;
  const found = new Set(
    db
      .select({ id: events.id })
      .from(events)
      .where(inArray(events.id, [...eventIds]))
      .all()
      .map((row) => row.id),
  );
  const missing = eventIds.find((id) => !found.has(id));
  if (missing !== undefined) throw new EventNotFoundError(missing);
}

export function linkEvents(db: LedgerDrizzle, turnId: string, eventIds: readonly string[]): void {
  if (eventIds.length === 0) return;
  db.insert(turnEvents)
    .values([...new Set(eventIds)].map((eventId) => ({ turnId, eventId })))
    .run();
}

/** Event ids cited by each of these turns (turns citing none are absent). */
export function eventIdsByTurn(db: LedgerDrizzle, turnIds: readonly string[]): Map<string, string[]> {
  const links = new Map<string, string[]>();
  for (let start = 0; start < turnIds.length; start += 500) {
    const rows = db
      .select()
      .from(turnEvents)
      .where(inArray(turnEvents.turnId, turnIds.slice(start, start + 500)))
      .all();
    for (const row of rows) links.set(row.turnId, [...(links.get(row.turnId) ?? []), row.eventId]);
  }
  return links;
}

/** Rows to turns, each with the events it cites: one query for the whole list. */
export function turnsWithEventLinks(db: LedgerDrizzle, rows: readonly AgentTurnRow[]): Turn[] {
  const links = eventIdsByTurn(
    db,
    rows.filter((row) => row.turnType === 'normal').map((row) => row.id),
  );
  return rows.map((row) => turnFromRow(row, links.get(row.id) ?? []));
}
