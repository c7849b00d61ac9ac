// PostgreSQL: placeholder, filled in by the port of this area.
import type { MaintenanceStore } from '../store/maintenance-store.ts';
import type { PgExecutor } from './pg-executor.ts';

export function maintenanceQueries(_executor: PgExecutor): MaintenanceStore {
  return {} as MaintenanceStore;
}
