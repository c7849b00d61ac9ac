// PostgreSQL: placeholder, filled in by the port of this area.
import type { ForestStore } from '../store/forest-store.ts';
import type { PgExecutor } from './pg-executor.ts';

export function forestQueries(_executor: PgExecutor): ForestStore {
  return {} as ForestStore;
}
