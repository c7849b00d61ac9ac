// The PostgreSQL append baselines, the physical limit on that engine: equivalent rows written with plain `pg` queries over one
// connection into minimal tables. Turns: id, session, parent, depth, the content as jsonb, a token count and a timestamp, with
// the same per-row work the SQLite baseline does (an id, the JSON, a token count); with `fullText`, the ledger's search_text and
// its generated tsvector column with a GIN index (what full-text search alone costs the engine). One turn is one INSERT (its own
// transaction); a batch is one INSERT of unnest()ed column arrays, as the ledger writes it. Events: the columns, check, unique
// and plain indexes of the ledger's `events` table (and its search column and GIN index with `fullText`), rows precomputed.

import type PgModule from 'pg';
import type { AppendTurnInput } from '../../packages/agents-ledger/src/index.ts';
import {
  contentText,
  countContentTokens,
  estimateTokenCounter,
  generateId,
  toContentBlocks,
} from '../../packages/core/src/index.ts';
import type { AppendEventInput } from '../../packages/events-ledger/src/validate-event.ts';
import { eventRowPrecomputer, type RawEventRow } from './raw-events-store.ts';
import { pg } from './raw-pg-databases.ts';

const SEARCH_VECTOR = `search_vector tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, coalesce(search_text, ''))) STORED`;

export interface RawPgTurnStore {
  /** One row, one INSERT in its own transaction. */
  appendOne(input: AppendTurnInput): Promise<void>;
  /** Every row in one INSERT. */
  appendMany(inputs: readonly AppendTurnInput[]): Promise<void>;
  close(): Promise<void>;
}

export interface RawPgStoreOptions {
  /** The ledger's search_text column, its generated tsvector and GIN index too. */
  fullText?: boolean;
}

async function connect(url: string): Promise<PgModule.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** A raw turns table in the database at `url` (created if missing, so several clients can share one). */
export async function openRawPgTurnStore(url: string, options: RawPgStoreOptions = {}): Promise<RawPgTurnStore> {
  const fullText = options.fullText ?? false;
  const client = await connect(url);
  await client.query(`CREATE TABLE IF NOT EXISTS turns (
    id text PRIMARY KEY NOT NULL,
    session_id text NOT NULL,
    parent_id text,
    depth integer NOT NULL,
    content jsonb NOT NULL,
    token_count integer NOT NULL,
    timestamp bigint NOT NULL${fullText ? `,\n    search_text text,\n    ${SEARCH_VECTOR}` : ''}
  )`);
  if (fullText) await client.query('CREATE INDEX IF NOT EXISTS idx_turns_search ON turns USING gin (search_vector)');
  const columns = `id, session_id, parent_id, depth, content, token_count, timestamp${fullText ? ', search_text' : ''}`;
  const types = ['text', 'text', 'text', 'integer', 'jsonb', 'integer', 'bigint', ...(fullText ? ['text'] : [])];
  const insertOne = `INSERT INTO turns (${columns}) VALUES (${types.map((type, index) => `$${index + 1}::${type}`).join(', ')})`;
  const insertMany = `INSERT INTO turns (${columns}) SELECT * FROM unnest(${types.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})`;
  const sessionId = generateId('session');
  let parentId: string | null = null;
  let depth = -1;
  const rowOf = (input: AppendTurnInput): unknown[] => {
    const content = toContentBlocks(input.content);
    const id = generateId('turn');
    depth += 1;
    const row = [
      id,
      sessionId,
      parentId,
      depth,
      JSON.stringify(content),
      countContentTokens(estimateTokenCounter, content),
      input.timestamp ?? Date.now(),
      ...(fullText ? [contentText(content).normalize('NFKC')] : []),
    ];
    parentId = id;
    return row;
  };
  return {
    async appendOne(input) {
      await client.query(insertOne, rowOf(input));
    },
    async appendMany(inputs) {
      const rows = inputs.map(rowOf);
      await client.query(
        insertMany,
        types.map((_, column) => rows.map((row) => row[column])),
      );
    },
    close: () => client.end(),
  };
}

export interface RawPgEventStore {
  precompute(inputs: readonly AppendEventInput[]): RawEventRow[];
  insertOne(row: RawEventRow): Promise<void>;
  insertMany(rows: readonly RawEventRow[]): Promise<void>;
  /** INSERT … ON CONFLICT DO NOTHING of every row in one statement; returns the rows written. */
  insertOrIgnoreMany(rows: readonly RawEventRow[]): Promise<number>;
  count(): Promise<number>;
  close(): Promise<void>;
}

const EVENT_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'bigint', 'bigint', 'bigint', 'text', 'text'];
const EVENT_COLUMNS = 'id, channel, external_id, author, kind, payload, occurred_at, received_at, seq, prev_hash, hash';

export async function openRawPgEventStore(url: string, options: RawPgStoreOptions = {}): Promise<RawPgEventStore> {
  const fullText = options.fullText ?? false;
  const client = await connect(url);
  await client.query(`CREATE TABLE events (
    id text PRIMARY KEY NOT NULL,
    channel text NOT NULL,
    external_id text NOT NULL,
    author text,
    kind text NOT NULL,
    payload text NOT NULL,
    occurred_at bigint NOT NULL,
    received_at bigint NOT NULL,
    seq bigint NOT NULL,
    prev_hash text,
    hash text NOT NULL${fullText ? `,\n    search_text text,\n    ${SEARCH_VECTOR}` : ''},
    CONSTRAINT seq_positive CHECK (seq >= 1)
  )`);
  await client.query('CREATE UNIQUE INDEX idx_events_channel_external ON events (channel, external_id)');
  await client.query('CREATE UNIQUE INDEX idx_events_channel_seq ON events (channel, seq)');
  await client.query('CREATE INDEX idx_events_channel_occurred ON events (channel, occurred_at)');
  if (fullText) await client.query('CREATE INDEX idx_events_search ON events USING gin (search_vector)');
  const types = fullText ? [...EVENT_TYPES, 'text'] : EVENT_TYPES;
  const columns = fullText ? `${EVENT_COLUMNS}, search_text` : EVENT_COLUMNS;
  const insertOne = `INSERT INTO events (${columns}) VALUES (${types.map((type, index) => `$${index + 1}::${type}`).join(', ')})`;
  const insertMany = `INSERT INTO events (${columns}) SELECT * FROM unnest(${types.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})`;
  const columnArrays = (rows: readonly RawEventRow[]) => types.map((_, column) => rows.map((row) => row[column]));
  return {
    precompute: eventRowPrecomputer(fullText),
    async insertOne(row) {
      await client.query(insertOne, [...row]);
    },
    async insertMany(rows) {
      await client.query(insertMany, columnArrays(rows));
    },
    async insertOrIgnoreMany(rows) {
      const result = await client.query(`${insertMany} ON CONFLICT DO NOTHING`, columnArrays(rows));
      return result.rowCount ?? 0;
    },
    async count() {
      const result = await client.query<{ count: string }>('SELECT count(*) AS count FROM events');
      return Number(result.rows[0]?.count ?? 0);
    },
    close: () => client.end(),
  };
}
