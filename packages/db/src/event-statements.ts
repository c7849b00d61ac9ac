// The statements every event append runs, prepared once per connection: the idempotency lookup,
// the channel's last event (for seq and the hash chain) and the insert.

import type Database from 'better-sqlite3';
import type { LedgerDatabase } from './open-database.ts';
import { preparedInsert } from './prepared-insert.ts';
import { type EventRow, events } from './schema.ts';

export interface EventStatements {
  findByExternalId(channel: string, externalId: string): EventRow | undefined;
  lastOfChannel(channel: string): Pick<EventRow, 'seq' | 'hash'> | undefined;
  insertEvent(row: EventRow): void;
}

const cache = new WeakMap<Database.Database, EventStatements>();

const SELECT_COLUMNS =
  'id, channel, external_id AS externalId, author, kind, payload, occurred_at AS occurredAt, ' +
  'received_at AS receivedAt, seq, prev_hash AS prevHash, hash, search_text AS searchText';

export function eventStatements(database: LedgerDatabase): EventStatements {
  const { sqlite } = database;
  let statements = cache.get(sqlite);
  if (statements) return statements;
  const byExternalId = sqlite.prepare(`SELECT ${SELECT_COLUMNS} FROM events WHERE channel = ? AND external_id = ?`);
  const last = sqlite.prepare('SELECT seq, hash FROM events WHERE channel = ? ORDER BY seq DESC LIMIT 1');
  statements = {
    findByExternalId: (channel, externalId) => byExternalId.get(channel, externalId) as EventRow | undefined,
    lastOfChannel: (channel) => last.get(channel) as Pick<EventRow, 'seq' | 'hash'> | undefined,
    insertEvent: preparedInsert<EventRow>(sqlite, events),
  };
  cache.set(sqlite, statements);
  return statements;
}
