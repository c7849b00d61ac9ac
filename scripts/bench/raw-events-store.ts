// The events ingest baselines, the physical limit: a plain better-sqlite3 prepared INSERT of precomputed rows (id, canonical
// payload text, seq, prev_hash and sha256 hash all computed before the clock starts) into a table with the columns, unique
// indexes and pragmas of the ledger's `events` table. It checks nothing and hashes nothing while timed. With `fullText`, the
// table also has the ledger's search_text column and its FTS5 index (same tokenizer, external content, filled by the same
// AFTER INSERT trigger), and the precomputed rows carry the ledger's search text: what the ledger's insert costs the engine,
// so the gap between it and the ledger is the ledger's own work.

import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { canonicalJson, generateId } from '../../packages/core/src/index.ts';
import { searchTextOf } from '../../packages/events-ledger/src/append-events.ts';
import { eventHash, type HashedFields } from '../../packages/events-ledger/src/event-hash.ts';
import type { AppendEventInput } from '../../packages/events-ledger/src/validate-event.ts';

// better-sqlite3 is a dependency of @agent-ledger/store-sqlite, not of the workspace root: load it from there.
const requireFromDatabasePackage = createRequire(new URL('../../packages/store-sqlite/package.json', import.meta.url));
const Database = requireFromDatabasePackage('better-sqlite3') as typeof BetterSqlite3;

type EventColumns = [
  id: string,
  channel: string,
  externalId: string,
  author: string | null,
  kind: string,
  payload: string,
  occurredAt: number,
  receivedAt: number,
  seq: number,
  prevHash: string | null,
  hash: string,
];

/** Positional values in the column order of the store's INSERT (the full-text store's rows end with the search text). */
export type RawEventRow = readonly [...EventColumns] | readonly [...EventColumns, searchText: string];

export interface RawEventStoreOptions {
  /** The ledger's search_text column and FTS5 index too. */
  fullText?: boolean;
}

export interface RawEventStore {
  /** Untimed: the rows the ledger would store for these inputs, continuing this store's per-channel chains. */
  precompute(inputs: readonly AppendEventInput[]): RawEventRow[];
  /** One row in its own IMMEDIATE transaction. */
  insertOne(row: RawEventRow): void;
  /** Every row in one IMMEDIATE transaction. */
  insertMany(rows: readonly RawEventRow[]): void;
  /** INSERT OR IGNORE of every row in one IMMEDIATE transaction; returns the rows written. */
  insertOrIgnoreMany(rows: readonly RawEventRow[]): number;
  count(): number;
  close(): void;
}

// The `events` table of packages/store-sqlite/drizzle-sqlite/0001_events_ledger.sql: same columns, check, unique and plain indexes.
const EVENTS_TABLE = `
  CREATE TABLE events (
    id TEXT PRIMARY KEY NOT NULL,
    channel TEXT NOT NULL,
    external_id TEXT NOT NULL,
    author TEXT,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    occurred_at INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    prev_hash TEXT,
    hash TEXT NOT NULL,
    CONSTRAINT seq_positive CHECK (seq >= 1)
  );
  CREATE UNIQUE INDEX idx_events_channel_external ON events (channel, external_id);
  CREATE UNIQUE INDEX idx_events_channel_seq ON events (channel, seq);
  CREATE INDEX idx_events_channel_occurred ON events (channel, occurred_at);
`;

// The search column (0003_search_text.sql) and the index with its trigger (0004_full_text_search.sql).
const FULL_TEXT = `
  ALTER TABLE events ADD search_text TEXT;
  CREATE VIRTUAL TABLE events_fts USING fts5(
    search_text,
    content = 'events',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER events_fts_insert AFTER INSERT ON events
  BEGIN
    INSERT INTO events_fts (rowid, search_text) VALUES (NEW.rowid, NEW.search_text);
  END;
`;

const COLUMNS = 'id, channel, external_id, author, kind, payload, occurred_at, received_at, seq, prev_hash, hash';

export function openRawEventStore(path: string, options: RawEventStoreOptions = {}): RawEventStore {
  const fullText = options.fullText ?? false;
  const sqlite = new Database(path);
  // The pragmas of packages/store-sqlite/src/open-database.ts.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.exec(EVENTS_TABLE);
  if (fullText) sqlite.exec(FULL_TEXT);
  const columns = fullText ? `${COLUMNS}, search_text` : COLUMNS;
  const values = new Array(fullText ? 12 : 11).fill('?').join(', ');
  const insert = sqlite.prepare(`INSERT INTO events (${columns}) VALUES (${values})`);
  const insertOrIgnore = sqlite.prepare(`INSERT OR IGNORE INTO events (${columns}) VALUES (${values})`);
  const insertOne = sqlite.transaction((row: RawEventRow) => {
    insert.run(row);
  });
  const insertMany = sqlite.transaction((rows: readonly RawEventRow[]) => {
    for (const row of rows) insert.run(row);
  });
  const insertOrIgnoreMany = sqlite.transaction((rows: readonly RawEventRow[]) => {
    let written = 0;
    for (const row of rows) written += insertOrIgnore.run(row).changes;
    return written;
  });
  const precompute = eventRowPrecomputer(fullText);
  return {
    precompute,
    insertOne: (row) => insertOne.immediate(row),
    insertMany: (rows) => insertMany.immediate(rows),
    insertOrIgnoreMany: (rows) => insertOrIgnoreMany.immediate(rows),
    count: () => (sqlite.prepare('SELECT count(*) AS count FROM events').get() as { count: number }).count,
    close: () => sqlite.close(),
  };
}

/** Untimed row making shared by the raw stores of both engines: the rows the ledger would store, continuing per-channel chains. */
export function eventRowPrecomputer(fullText: boolean): (inputs: readonly AppendEventInput[]) => RawEventRow[] {
  const heads = new Map<string, { seq: number; hash: string }>();
  return (inputs: readonly AppendEventInput[]): RawEventRow[] => {
    const receivedAt = Date.now();
    return inputs.map((input) => {
      const head = heads.get(input.channel);
      const fields: HashedFields = {
        id: generateId('event'),
        channel: input.channel,
        externalId: input.externalId,
        author: input.author ?? null,
        kind: input.kind ?? 'message',
        payload: canonicalJson(input.payload),
        occurredAt: typeof input.occurredAt === 'number' ? input.occurredAt : receivedAt,
        receivedAt,
        seq: (head?.seq ?? 0) + 1,
        prevHash: head?.hash ?? null,
      };
      const hash = eventHash(fields);
      heads.set(input.channel, { seq: fields.seq, hash });
      const { id, channel, externalId, author, kind, payload, occurredAt, seq, prevHash } = fields;
      const row: EventColumns = [id, channel, externalId, author, kind, payload, occurredAt, receivedAt, seq, prevHash, hash];
      return fullText ? ([...row, searchTextOf(author, JSON.parse(payload))] as const) : row;
    });
  };
}
