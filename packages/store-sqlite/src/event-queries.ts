// Events on SQLite: prepared statements over `events` (append-only: triggers refuse UPDATE, DELETE
// and REPLACE) and its full-text index `events_fts` (written by an insert trigger). An append is one
// IMMEDIATE transaction (a savepoint when a store transaction is open), so the (channel, externalId)
// lookups, the tails and the inserts of a batch see no other writer, in this process or another.

import type { AppendEvents, AppendedEventRecord, EventPageQuery, EventRecord, EventStore, EventTail } from '@agent-ledger/store';
import { checkSealed } from '@agent-ledger/store';
import type Database from 'better-sqlite3';
import { fts5IndexProblem } from './fts5-integrity.ts';
import { chunks, placeholders, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

const EVENT_COLUMNS =
  'id, channel, external_id AS externalId, author, kind, payload, occurred_at AS occurredAt, ' +
  'received_at AS receivedAt, seq, prev_hash AS prevHash, hash, search_text AS searchText';

const INSERT_EVENT =
  'INSERT INTO events (id, channel, external_id, author, kind, payload, occurred_at, received_at, seq, prev_hash, hash, ' +
  'search_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

const BY_KEY = `SELECT ${EVENT_COLUMNS} FROM events WHERE channel = ? AND external_id = ?`;
const TAIL = 'SELECT seq, hash FROM events WHERE channel = ? ORDER BY seq DESC LIMIT 1';
/** Keys looked up per statement in a batch; a shorter list is padded with NULL (which matches nothing). */
const KEY_CHUNK = 100;
const BY_KEYS = `SELECT ${EVENT_COLUMNS} FROM events WHERE channel = ? AND external_id IN (${placeholders(KEY_CHUNK)})`;

/** The statements every append runs, looked up once per connection: the hot path runs them for every batch. */
interface AppendStatements {
  byKey: Database.Statement;
  byKeys: Database.Statement;
  tailOf: Database.Statement;
  insert: Database.Statement;
}

function appendStatements({ statement }: SqliteConnection): AppendStatements {
  return { byKey: statement(BY_KEY), byKeys: statement(BY_KEYS), tailOf: statement(TAIL), insert: statement(INSERT_EVENT) };
}

/** The stored events among the keys of a batch, by channel then externalId: a few statements, not one per event. */
function storedEvents({ byKey, byKeys }: AppendStatements, keys: AppendEvents['events']): Map<string, Map<string, EventRecord>> {
  const byChannel = new Map<string, Set<string>>();
  for (const { channel, externalId } of keys) {
    const ids = byChannel.get(channel);
    if (ids) ids.add(externalId);
    else byChannel.set(channel, new Set([externalId]));
  }
  const found = new Map<string, Map<string, EventRecord>>();
  for (const [channel, ids] of byChannel) {
    const stored = new Map<string, EventRecord>();
    found.set(channel, stored);
    if (ids.size === 1) {
      const [externalId] = ids as Set<string>;
      const record = byKey.get(channel, externalId) as EventRecord | undefined;
      if (record) stored.set(record.externalId, record);
      continue;
    }
    for (const chunk of chunks([...ids], KEY_CHUNK)) {
      const padded: Array<string | null> =
        chunk.length === KEY_CHUNK ? chunk : [...chunk, ...new Array(KEY_CHUNK - chunk.length).fill(null)];
      for (const record of byKeys.all(channel, ...padded) as EventRecord[]) stored.set(record.externalId, record);
    }
  }
  return found;
}

function insertEvent({ insert }: AppendStatements, record: EventRecord): void {
  insert.run(
    record.id,
    record.channel,
    record.externalId,
    record.author,
    record.kind,
    record.payload,
    record.occurredAt,
    record.receivedAt,
    record.seq,
    record.prevHash,
    record.hash,
    record.searchText,
  );
}

/** The body of an append; run only inside `appendTransaction`'s IMMEDIATE transaction. */
function appendBatch(statements: AppendStatements, batch: AppendEvents): AppendedEventRecord[] {
  // Read inside the transaction: no other writer can store one of these keys before the inserts.
  const stored = storedEvents(statements, batch.events);
  // One tail read per channel per batch; later events of the batch continue what it sealed.
  const tails = new Map<string, EventTail | null>();
  const out: AppendedEventRecord[] = new Array(batch.events.length);
  for (let index = 0; index < batch.events.length; index += 1) {
    const { channel, externalId } = batch.events[index] as AppendEvents['events'][number];
    const ofChannel = stored.get(channel) as Map<string, EventRecord>;
    // A key stored before, or earlier in this batch, is a duplicate.
    const existing = ofChannel.get(externalId);
    if (existing) {
      out[index] = { record: existing, duplicate: true };
      continue;
    }
    let tail = tails.get(channel);
    if (tail === undefined) {
      tail = (statements.tailOf.get(channel) as EventTail | undefined) ?? null;
    }
    const record = batch.seal(index, tail);
    checkSealed(record, channel, externalId, tail);
    insertEvent(statements, record);
    tails.set(channel, { seq: record.seq, hash: record.hash });
    ofChannel.set(externalId, record);
    out[index] = { record, duplicate: false };
  }
  return out;
}

/** The append as a better-sqlite3 transaction, made once per connection. */
function appendTransaction(connection: SqliteConnection, statements: AppendStatements) {
  return connection.sqlite.transaction((batch: AppendEvents) => appendBatch(statements, batch));
}

function getEvent(connection: SqliteConnection, eventId: string): EventRecord | undefined {
  return connection.statement(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = ?`).get(eventId) as EventRecord | undefined;
}

function eventPage(
  connection: SqliteConnection,
  { channel, afterSeq, fromSeq, toSeq, since, until, limit }: EventPageQuery,
): EventRecord[] {
  const clauses = ['channel = ?', 'seq > ?'];
  const values: unknown[] = [channel, afterSeq ?? 0];
  if (fromSeq !== undefined) {
    clauses.push('seq >= ?');
    values.push(fromSeq);
  }
  if (toSeq !== undefined) {
    clauses.push('seq <= ?');
    values.push(toSeq);
  }
  if (since !== undefined) {
    clauses.push('occurred_at >= ?');
    values.push(since);
  }
  if (until !== undefined) {
    clauses.push('occurred_at <= ?');
    values.push(until);
  }
  // At most 2^4 statement shapes, each prepared once.
  return connection
    .statement(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${clauses.join(' AND ')} ORDER BY seq LIMIT ?`)
    .all(...values, limit) as EventRecord[];
}

function eventAtSeq(connection: SqliteConnection, channel: string, seq: number): EventRecord | undefined {
  return connection.statement(`SELECT ${EVENT_COLUMNS} FROM events WHERE channel = ? AND seq = ?`).get(channel, seq) as
    | EventRecord
    | undefined;
}

function eventChannels(connection: SqliteConnection): string[] {
  return (connection.statement('SELECT DISTINCT channel FROM events ORDER BY channel').all() as Array<{ channel: string }>).map(
    (row) => row.channel,
  );
}

export function eventQueries(connection: SqliteConnection): Synchronous<EventStore> {
  const statements = appendStatements(connection);
  const append = appendTransaction(connection, statements);
  return {
    appendEvents: (batch) => (batch.events.length === 0 ? [] : append.immediate(batch)),
    getEvent: (eventId) => getEvent(connection, eventId),
    eventPage: (query) => eventPage(connection, query),
    eventAtSeq: (channel, seq) => eventAtSeq(connection, channel, seq),
    channelTail: (channel) => statements.tailOf.get(channel) as EventTail | undefined,
    eventChannels: () => eventChannels(connection),
    // FTS5's check on any connection, a read-only one included (fts5-integrity.ts).
    checkEventSearchIndex: () => fts5IndexProblem(connection.sqlite, ['events_fts']),
  };
}
