// The bench's PostgreSQL databases: one fresh database per store it measures, created next to the
// database the --db URL names (on the same server, with that URL's user, who must be allowed to
// CREATE DATABASE), and dropped when the run ends. Uses `pg` directly, as the raw baselines do.

import { createRequire } from 'node:module';
import type PgModule from 'pg';

// pg is a dependency of @agent-ledger/store-postgres, not of the workspace root: load it from there.
const requireFromDatabasePackage = createRequire(new URL('../../packages/store-postgres/package.json', import.meta.url));
export const pg = requireFromDatabasePackage('pg') as typeof PgModule;

export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

export interface BenchDatabases {
  /** A new empty database on the server; returns its URL. */
  create(label: string): Promise<string>;
  /** Drops a database made by `create` (its connections must be closed). */
  drop(url: string): Promise<void>;
  /** Drops every database still left. */
  dropAll(): Promise<void>;
  /** The database's size on disk in bytes (pg_database_size). */
  bytes(url: string): Promise<number>;
  /** VACUUM ANALYZE of the whole database: what autovacuum would do soon after a bulk build. */
  settle(url: string): Promise<void>;
}

async function withAdmin<T>(serverUrl: string, work: (client: PgModule.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

export function benchDatabases(serverUrl: string): BenchDatabases {
  const created = new Set<string>();
  let counter = 0;
  const drop = async (url: string) => {
    created.delete(url);
    await withAdmin(serverUrl, (client) =>
      client.query(`DROP DATABASE IF EXISTS "${databaseName(url)}" WITH (FORCE)`).then(() => undefined),
    );
  };
  return {
    async create(label) {
      counter += 1;
      const name = `nexus_bench_${process.pid}_${counter}_${label}`
        .toLowerCase()
        .replace(/[^a-z0-9_]/g, '_')
        .slice(0, 63);
      await withAdmin(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      created.add(url.toString());
      return url.toString();
    },
    drop,
    async dropAll() {
      for (const url of [...created]) await drop(url);
    },
    async bytes(url) {
      const result = await withAdmin(url, (client) =>
        client.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes'),
      );
      return Number(result.rows[0]?.bytes ?? 0);
    },
    settle: (url) => withAdmin(url, (client) => client.query('VACUUM ANALYZE').then(() => undefined)),
  };
}
