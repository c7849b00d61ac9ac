// For tests only (`@agent-ledger/store-postgres/testing`): a fresh database on a PostgreSQL server,
// so each test (or each process of a test) starts from an empty ledger.

import pg from 'pg';

export { type StatementProxy, statementProxy } from './statement-proxy.ts';

let freshDatabases = 0;

/**
 * A fresh, empty database on a PostgreSQL server (for tests: the run's server from vitest's
 * `inject('postgresUrl')`), with a unique name; returns its URL.
 */
export async function freshPostgresDatabase(serverUrl: string, label = 'test'): Promise<string> {
  freshDatabases += 1;
  const name = `${label}_${process.pid}_${freshDatabases}_${Date.now().toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
