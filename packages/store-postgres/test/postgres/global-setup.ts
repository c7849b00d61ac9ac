// vitest global setup: one PostgreSQL server for the whole run, when the machine has one to start.
// Test files reach it with `inject('postgresUrl')` (null when there is none). In CI a missing
// server is an error, never a silent skip; elsewhere the run says in one line how to enable it.

import type { TestProject } from 'vitest/node';
import { findPostgresBinaries, type PostgresServer, startPostgres } from './pg-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null;
  }
}

let server: PostgresServer | null = null;

export default async function setup(project: TestProject): Promise<() => void> {
  const binaries = findPostgresBinaries();
  if (!binaries) {
    if (process.env.CI)
      throw new Error('PostgreSQL is not installed, and CI must run the PostgreSQL suite: apt-get install -y postgresql');
    console.log('PostgreSQL suite skipped: no PostgreSQL server binaries here (install them: apt-get install -y postgresql).');
    project.provide('postgresUrl', null);
    return () => {};
  }
  server = await startPostgres(binaries);
  project.provide('postgresUrl', server.url);
  return () => server?.stop();
}
