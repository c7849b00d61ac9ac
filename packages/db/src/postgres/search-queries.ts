// PostgreSQL: placeholder, filled in by the port of this area.
import type { SearchStore } from '../store/search-store.ts';
import type { PgExecutor } from './pg-executor.ts';

export function searchQueries(_executor: PgExecutor): SearchStore {
  return {} as SearchStore;
}
