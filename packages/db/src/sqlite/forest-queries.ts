// Placeholder: filled in by the port of this area to the store seam.
import type { ForestStore } from '../store/forest-store.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

export function forestQueries(_connection: SqliteConnection): Synchronous<ForestStore> {
  return {};
}
