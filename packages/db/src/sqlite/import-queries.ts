// Placeholder: filled in by the port of this area to the store seam.
import type { ImportStore } from '../store/import-store.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

export function importQueries(_connection: SqliteConnection): Synchronous<ImportStore> {
  return {};
}
