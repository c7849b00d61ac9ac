// Placeholder: filled in by the port of this area to the store seam.
import type { EventStore } from '../store/event-store.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

export function eventQueries(_connection: SqliteConnection): Synchronous<EventStore> {
  return {};
}
