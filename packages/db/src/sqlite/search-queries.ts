// Placeholder: filled in by the port of this area to the store seam.
import type { SearchStore } from '../store/search-store.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

export function searchQueries(_connection: SqliteConnection): Synchronous<SearchStore> {
  return {};
}
