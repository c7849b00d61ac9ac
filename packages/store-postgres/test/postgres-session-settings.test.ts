// The store's sessions run with JIT off: its statements are bounded (LIMITs, index probes), but at a
// million turns the planner's estimates put the search statistics statement over jit_above_cost and
// compiling it took ~99 ms of a 100 ms search. Read on the wire, where the setting is sent: in each
// connection's startup message, which a loopback proxy in front of the run's real server sees.

import { afterEach, describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { type StatementProxy, statementProxy } from '../src/statement-proxy.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');

describe.skipIf(!server)('the PostgreSQL store sessions', () => {
  let proxy: StatementProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
  });

  it('ask for JIT off in the startup message of every connection they open', async () => {
    proxy = await statementProxy(await freshPostgresDatabase(server as string, 'settings'));
    const store = openPostgresStore(proxy.url);
    try {
      // Two operations at once: the pool opens a second connection.
      await Promise.all([store.getSession('none'), store.listSessions({ limit: 1, offset: 0 })]);
      const startups = proxy.startupParameters();
      expect(startups.length).toBeGreaterThan(0);
      for (const parameters of startups) expect(parameters.options).toBe('-c jit=off');
    } finally {
      await store.close();
    }
  });
});
