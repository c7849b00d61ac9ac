// PostgreSQL: placeholder, filled in by the port of this area.
import type { ImportStore } from '../store/import-store.ts';
import type { PgExecutor } from './pg-executor.ts';

export function importQueries(_executor: PgExecutor): ImportStore {
  return {} as ImportStore;
}
