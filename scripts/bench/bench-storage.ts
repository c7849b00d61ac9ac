// Where the bench's ledgers live: SQLite files in the run's scratch directory (the default), or, with --db postgres://…,
// a fresh database per history on that server, made next to the database the URL names and dropped at the end.

import { join } from 'node:path';
import { openEventsLedger } from '../../packages/events-ledger/src/index.ts';
import { openRawSqlite } from '../../packages/store-sqlite/src/testing.ts';
import type { IngestEngine } from './events-ingest-benchmark.ts';
import { sqliteIngestEngine } from './events-ingest-benchmark.ts';
import { type BenchDatabases, benchDatabases } from './raw-pg-databases.ts';
import { openRawPgEventStore } from './raw-pg-store.ts';
import { removeDatabaseFiles } from './temporary-files.ts';

export interface BenchStorage {
  engine: 'sqlite' | 'postgres';
  /** PostgreSQL: the server's databases, for the stores the append benchmark makes itself. */
  databases: BenchDatabases | null;
  /** A new, empty place for a ledger: a file path or a database URL. */
  create(label: string): Promise<string>;
  remove(location: string): Promise<void>;
  /** What the database takes on disk. */
  bytes(location: string): Promise<number>;
  /**
   * After a bulk build, before anything is timed: PostgreSQL vacuums and analyzes the database, as
   * autovacuum would within minutes (timed while it ran, every query kind's p95 at 100k turns was
   * ~120 ms, even a search that matches nothing); SQLite has nothing to do.
   */
  settle(location: string): Promise<void>;
  /** The events ingest stores, ledger and raw, on this engine. */
  ingestEngine(): IngestEngine;
  /** Removes whatever is left. */
  close(): Promise<void>;
}

export function sqliteStorage(directory: string): BenchStorage {
  return {
    engine: 'sqlite',
    databases: null,
    create: async (label) => join(directory, `${label}.sqlite`),
    remove: async (path) => removeDatabaseFiles(path),
    async bytes(path) {
      const sqlite = openRawSqlite(path, { readonly: true });
      try {
        return (
          (sqlite.pragma('page_count', { simple: true }) as number) * (sqlite.pragma('page_size', { simple: true }) as number)
        );
      } finally {
        sqlite.close();
      }
    },
    settle: async () => {},
    ingestEngine: () => sqliteIngestEngine(directory),
    close: async () => {},
  };
}

export function postgresStorage(serverUrl: string): BenchStorage {
  const databases = benchDatabases(serverUrl);
  return {
    engine: 'postgres',
    databases,
    create: (label) => databases.create(label),
    remove: (url) => databases.drop(url),
    bytes: (url) => databases.bytes(url),
    settle: (url) => databases.settle(url),
    ingestEngine: () => ({
      fullTextName: 'tsvector + GIN insert',
      ignoreName: 'INSERT ON CONFLICT DO NOTHING',
      openLedger: async (label) => openEventsLedger(await databases.create(`events_ledger_${label}`)),
      openRaw: async (label, fullText) =>
        openRawPgEventStore(await databases.create(`events_raw_${fullText ? 'fts_' : ''}${label}`), { fullText }),
    }),
    close: () => databases.dropAll(),
  };
}
