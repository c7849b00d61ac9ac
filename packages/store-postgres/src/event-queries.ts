// Events on PostgreSQL: `events` (append-only: triggers refuse UPDATE, DELETE and TRUNCATE) and its
// generated `search_vector`. An append is one transaction (a savepoint inside `store.transaction`)
// that first takes a transaction-scoped advisory lock per channel of the batch, so the
// (channel, externalId) lookups, the tails and the insert see no other appender of those channels,
// in this process or another. The unique indexes on (channel, seq) and (channel, external_id) are
// the backstop: should a writer that skips the locks win a race, the append is retried whole. This
// relies on READ COMMITTED (the server's default, which the store keeps): each statement after the
// locks takes a snapshot that holds every append committed before they were granted.

import type { AppendEvents, AppendedEventRecord, EventPageQuery, EventRecord, EventStore, EventTail } from '@agent-ledger/store';
import { checkSealed } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';

/** The stored columns as an EventRecord (BIGINT comes back from node-postgres as a string: cast). */
export const EVENT_COLUMNS =
  'id, channel, external_id AS "externalId", author, kind, payload, occurred_at::float8 AS "occurredAt", ' +
  'received_at::float8 AS "receivedAt", seq::float8 AS seq, prev_hash AS "prevHash", hash, search_text AS "searchText"';

/**
 * One lock per channel for the length of the transaction. The keys are taken in ascending order
 * (not the channels' names: two names may hash to one key), so two batches sharing channels always
 * lock them in the same order and cannot deadlock; a key is locked once even if two channels share it.
 */
const LOCK_CHANNELS =
  "SELECT pg_advisory_xact_lock(key) FROM (SELECT DISTINCT hashtext('nexus-channel:' || channel) AS key " +
  'FROM unnest($1::text[]) AS batch (channel) ORDER BY key) AS keys';

/**
 * What the batch needs to know, in one round trip (after the locks, in a statement of its own, so
 * its snapshot sees every append that held them before): the stored events among the batch's keys,
 * then one row per channel holding its tail (`isTail`; only channel, seq and hash set).
 */
const STORED_AND_TAILS =
  `SELECT false AS "isTail", ${EVENT_COLUMNS} FROM events WHERE (channel, external_id) IN ` +
  '(SELECT channel, external_id FROM unnest($1::text[], $2::text[]) AS batch (channel, external_id)) ' +
  'UNION ALL SELECT true, NULL, batch.channel, NULL, NULL, NULL, NULL, NULL, NULL, tail.seq::float8, NULL, tail.hash, NULL ' +
  'FROM unnest($3::text[]) AS batch (channel) CROSS JOIN LATERAL ' +
  '(SELECT seq, hash FROM events WHERE events.channel = batch.channel ORDER BY seq DESC LIMIT 1) AS tail';

const INSERT_EVENTS =
  'INSERT INTO events (id, channel, external_id, author, kind, payload, occurred_at, received_at, seq, prev_hash, hash, ' +
  'search_text) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], ' +
  '$7::bigint[], $8::bigint[], $9::bigint[], $10::text[], $11::text[], $12::text[]) ' +
  'ON CONFLICT (channel, external_id) DO NOTHING RETURNING id';

/** The constraints whose violation means the append lost a race (retried), not that its input is wrong. */
const RACE_CONSTRAINTS = new Set(['idx_events_channel_external', 'idx_events_channel_seq']);
/** Attempts of an append that keeps losing races before its error is reported. */
const APPEND_ATTEMPTS = 5;

class LostRace extends Error {}

function lostRace(error: unknown): boolean {
  if (error instanceof LostRace) return true;
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && typeof constraint === 'string' && RACE_CONSTRAINTS.has(constraint);
}

/** PostgreSQL text cannot hold NUL: the derived search text keeps a space in its place (the hashed payload is JSON, escaped). */
function storable(record: EventRecord): EventRecord {
  return record.searchText?.includes('\0') ? { ...record, searchText: record.searchText.replaceAll('\0', ' ') } : record;
}

async function appendOnce(executor: PgExecutor, batch: AppendEvents): Promise<AppendedEventRecord[]> {
  const channels = [...new Set(batch.events.map((event) => event.channel))];
  await executor.query(LOCK_CHANNELS, [channels]);

  // Under the locks: no other appender stores one of these keys or moves one of these tails now.
  const stored = new Map<string, Map<string, EventRecord>>(channels.map((channel) => [channel, new Map()]));
  const keys = new Map<string, EventKeyPair>();
  for (const { channel, externalId } of batch.events)
    keys.set(`${channel.length}:${channel}${externalId}`, [channel, externalId]);
  const pairs = [...keys.values()];
  const tails = new Map<string, EventTail | null>(channels.map((channel) => [channel, null]));
  const rows = await executor.query<EventRecord & { isTail: boolean }>(STORED_AND_TAILS, [
    pairs.map((pair) => pair[0]),
    pairs.map((pair) => pair[1]),
    channels,
  ]);
  for (const { isTail, ...record } of rows) {
    if (isTail) tails.set(record.channel, { seq: record.seq, hash: record.hash });
    else stored.get(record.channel)?.set(record.externalId, record);
  }

  const out: AppendedEventRecord[] = new Array(batch.events.length);
  const fresh: EventRecord[] = [];
  for (let index = 0; index < batch.events.length; index += 1) {
    const { channel, externalId } = batch.events[index] as AppendEvents['events'][number];
    const ofChannel = stored.get(channel) as Map<string, EventRecord>;
    // A key stored before, or earlier in this batch, is a duplicate.
    const existing = ofChannel.get(externalId);
    if (existing) {
      out[index] = { record: existing, duplicate: true };
      continue;
    }
    const tail = tails.get(channel) ?? null;
    const sealed = batch.seal(index, tail);
    checkSealed(sealed, channel, externalId, tail);
    const record = storable(sealed);
    fresh.push(record);
    tails.set(channel, { seq: record.seq, hash: record.hash });
    ofChannel.set(externalId, record);
    out[index] = { record, duplicate: false };
  }
  if (fresh.length === 0) return out;

  const column = (pick: (record: EventRecord) => unknown) => fresh.map(pick);
  const inserted = await executor.query(INSERT_EVENTS, [
    column((record) => record.id),
    column((record) => record.channel),
    column((record) => record.externalId),
    column((record) => record.author),
    column((record) => record.kind),
    column((record) => record.payload),
    column((record) => record.occurredAt),
    column((record) => record.receivedAt),
    column((record) => record.seq),
    column((record) => record.prevHash),
    column((record) => record.hash),
    column((record) => record.searchText),
  ]);
  // A key skipped by ON CONFLICT was stored by a writer that did not take the lock: start over.
  if (inserted.length !== fresh.length) throw new LostRace('appendEvents: a key of the batch was stored concurrently.');
  return out;
}

type EventKeyPair = [channel: string, externalId: string];

export function eventQueries(executor: PgExecutor): EventStore {
  const one = async (sql: string, parameters: unknown[]) => (await executor.query<EventRecord>(sql, parameters))[0];

  return {
    appendEvents: async (batch) => {
      if (batch.events.length === 0) return [];
      for (let attempt = 1; ; attempt += 1) {
        try {
          // The seal is pure: running the whole append again after a lost race is safe.
          return await executor.atomically((ex) => appendOnce(ex, batch));
        } catch (error) {
          if (attempt >= APPEND_ATTEMPTS || !lostRace(error)) throw error;
        }
      }
    },
    getEvent: (eventId) => one(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1`, [eventId]),
    eventPage: ({ channel, afterSeq, fromSeq, toSeq, since, until, limit }: EventPageQuery) => {
      const values: unknown[] = [channel, afterSeq ?? 0];
      const clauses = ['channel = $1', 'seq > $2'];
      const add = (clause: string, value: number | undefined) => {
        if (value === undefined) return;
        values.push(value);
        clauses.push(`${clause} $${values.length}`);
      };
      add('seq >=', fromSeq);
      add('seq <=', toSeq);
      add('occurred_at >=', since);
      add('occurred_at <=', until);
      values.push(limit);
      return executor.query<EventRecord>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE ${clauses.join(' AND ')} ORDER BY seq LIMIT $${values.length}`,
        values,
      );
    },
    eventAtSeq: (channel, seq) => one(`SELECT ${EVENT_COLUMNS} FROM events WHERE channel = $1 AND seq = $2`, [channel, seq]),
    channelTail: async (channel) =>
      (
        await executor.query<EventTail>(
          'SELECT seq::float8 AS seq, hash FROM events WHERE channel = $1 ORDER BY seq DESC LIMIT 1',
          [channel],
        )
      )[0],
    // COLLATE "C": the bytes of the UTF-8 text, whatever the database's locale.
    eventChannels: async () =>
      (await executor.query<{ channel: string }>('SELECT DISTINCT channel COLLATE "C" AS channel FROM events ORDER BY 1')).map(
        (row) => row.channel,
      ),
    // The search index is a column the server generates from search_text in the same row (and a
    // GIN index the server maintains): it cannot disagree with the events. What can be wrong is a
    // schema without it, which this reports.
    checkEventSearchIndex: async () => {
      const rows = await executor.query<{ generated: string }>(
        "SELECT is_generated AS generated FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'events' AND column_name = 'search_vector'",
      );
      if (rows[0]?.generated === 'ALWAYS') return null;
      return rows.length === 0
        ? 'events.search_vector is missing: the ledger schema is incomplete (run the migrations).'
        : 'events.search_vector is not a generated column: the ledger schema was changed by hand.';
    },
  };
}
