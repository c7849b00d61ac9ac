// A fresh, empty database on the run's PostgreSQL server, for one test or one test file.

import pg from 'pg';

let counter = 0;

/** Creates a database with a unique name and returns its URL. */
export async function freshPostgresDatabase(serverUrl: string, label = 'test'): Promise<string> {
  counter += 1;
  const name = `${label}_${process.pid}_${counter}_${Date.now().toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
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
