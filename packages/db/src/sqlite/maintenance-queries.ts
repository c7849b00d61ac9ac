// Placeholder: filled in by the port of this area to the store seam.
import type { MaintenanceStore } from '../store/maintenance-store.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

export function maintenanceQueries(_connection: SqliteConnection): Synchronous<MaintenanceStore> {
  return {};
}
