// PostgreSQL: placeholder, filled in by the port of this area.
import type { EventStore } from '../store/event-store.ts';
import type { PgExecutor } from './pg-executor.ts';

export function eventQueries(_executor: PgExecutor): EventStore {
  return {} as EventStore;
}
