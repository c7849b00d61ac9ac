// Events on SQLite: prepared statements over `events` (append-only: triggers refuse UPDATE, DELETE
// and REPLACE) and its full-text index `events_fts` (written by an insert trigger). An append is one
// IMMEDIATE transaction (a savepoint when a store transaction is open), so the (channel, externalId)
// lookups, the tails and the inserts of a batch see no other writer, in this process or another.

import { StorageError } from '@nexus/core';
import type { AppendEvents, AppendedEventRecord, EventRecord, EventStore, EventTail } from '../store/event-store.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

const EVENT_COLUMNS =
  'id, channel, external_id AS externalId, author, kind, payload, occurred_at AS occurredAt, ' +
  'received_at AS receivedAt, seq, prev_hash AS prevHash, hash, search_text AS searchText';

const INSERT_EVENT =
  'INSERT INTO events (id, channel, external_id, author, kind, payload, occurred_at, received_at, seq, prev_hash, hash, ' +
  'search_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

const BY_KEY = `SELECT ${EVENT_COLUMNS} FROM events WHERE channel = ? AND external_id = ?`;
const TAIL = 'SELECT seq, hash FROM events WHERE channel = ? ORDER BY seq DESC LIMIT 1';

/** A sealed record must continue its channel's tail and carry the key it was sealed for. */
function checkSealed(record: EventRecord, channel: string, externalId: string, tail: EventTail | null): void {
  if (record.channel !== channel || record.externalId !== externalId)
    throw new StorageError(`appendEvents: the record sealed for (${channel}, ${externalId}) carries another key.`);
  if (record.seq !== (tail?.seq ?? 0) + 1 || record.prevHash !== (tail?.hash ?? null))
    throw new StorageError(
      `appendEvents: the record sealed for ${channel} has seq ${record.seq} and prevHash ${record.prevHash}, ` +
        `but the channel's tail is seq ${tail?.seq ?? 0} with hash ${tail?.hash ?? null}.`,
    );
}

export function eventQueries(connection: SqliteConnection): Synchronous<EventStore> {
  const { sqlite, statement } = connection;
  // Looked up once: the hot path runs them for every event.
  const byKey = statement(BY_KEY);
  const tailOf = statement(TAIL);
  const insert = statement(INSERT_EVENT);

  const append = sqlite.transaction((batch: AppendEvents): AppendedEventRecord[] => {
    // One tail read per channel per batch; later events of the batch continue what it sealed.
    const tails = new Map<string, EventTail | null>();
    const out: AppendedEventRecord[] = new Array(batch.events.length);
    for (let index = 0; index < batch.events.length; index += 1) {
      const { channel, externalId } = batch.events[index] as AppendEvents['events'][number];
      // Earlier events of this batch are in the table already: a key twice in a batch is a duplicate.
      const stored = byKey.get(channel, externalId) as EventRecord | undefined;
      if (stored) {
        out[index] = { record: stored, duplicate: true };
        continue;
      }
      let tail = tails.get(channel);
      if (tail === undefined) {
        tail = (tailOf.get(channel) as EventTail | undefined) ?? null;
      }
      const record = batch.seal(index, tail);
      checkSealed(record, channel, externalId, tail);
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
      tails.set(channel, { seq: record.seq, hash: record.hash });
      out[index] = { record, duplicate: false };
    }
    return out;
  });

  return {
    appendEvents: (batch) => (batch.events.length === 0 ? [] : append.immediate(batch)),
    getEvent: (eventId) => statement(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = ?`).get(eventId) as EventRecord | undefined,
    eventPage: ({ channel, afterSeq, fromSeq, toSeq, since, until, limit }) => {
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
      return statement(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${clauses.join(' AND ')} ORDER BY seq LIMIT ?`).all(
        ...values,
        limit,
      ) as EventRecord[];
    },
    eventAtSeq: (channel, seq) =>
      statement(`SELECT ${EVENT_COLUMNS} FROM events WHERE channel = ? AND seq = ?`).get(channel, seq) as EventRecord | undefined,
    channelTail: (channel) => tailOf.get(channel) as EventTail | undefined,
    eventChannels: () =>
      (statement('SELECT DISTINCT channel FROM events ORDER BY channel').all() as Array<{ channel: string }>).map(
        (row) => row.channel,
      ),
    checkEventSearchIndex: () => {
      try {
        statement("INSERT INTO events_fts (events_fts, rank) VALUES ('integrity-check', 1)").run();
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    },
  };
}
