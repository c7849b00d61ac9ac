// The PostgreSQL store runs the store contract on a fresh database per store, on the run's real
// server (test/postgres/global-setup.ts). Skipped, with the setup's one line saying so, only where
// no PostgreSQL is installed; in CI a missing server fails the run.

import { runStoreContract } from '@agent-ledger/store/contract';
import { describe, inject } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');

if (server) {
  runStoreContract('postgres', {
    open: async () => openPostgresStore(await freshPostgresDatabase(server, 'contract')),
  });
} else {
  describe.skip('store contract: postgres (no PostgreSQL server here)', () => {});
}
