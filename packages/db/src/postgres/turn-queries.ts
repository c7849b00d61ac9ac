// PostgreSQL: placeholder, filled in by the port of this area.
import type { SessionStore, TurnStore } from '../store/turn-store.ts';
import type { PgExecutor } from './pg-executor.ts';

export function turnQueries(_executor: PgExecutor): SessionStore & TurnStore {
  return {} as SessionStore & TurnStore;
}
