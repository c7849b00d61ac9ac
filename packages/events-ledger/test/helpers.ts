// Shared helpers for the events-ledger tests: ledgers on real SQLite files in temp directories, a
// deterministic clock and ids, row counts and byte-exact snapshots of the stored tables. The rows are
// read through a connection of their own (@agent-ledger/store/testing), as another program would read the file.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type IdGenerator, LedgerError, sequentialIds } from '@agent-ledger/core';
import { freshPostgresDatabase } from '@agent-ledger/store-postgres/testing';
import { openRawSqlite, type RawSqlite } from '@agent-ledger/store-sqlite/testing';
import { expect, inject } from 'vitest';
import { type EventsLedger, type EventsLedgerOptions, openEventsLedger } from '../src/index.ts';

export const START_TIME = 1_700_000_000_000;

/** A clock that moves one second per call and remembers how often it was read. */
export function steppingClock(start = START_TIME, step = 1000): (() => number) & { calls: number } {
  let time = start;
  const clock = Object.assign(
    () => {
      clock.calls += 1;
      time += step;
      return time;
    },
    { calls: 0 },
  );
  return clock;
}

export interface TempEvents {
  ledger: EventsLedger;
  dir: string;
  file: string;
  clock: ReturnType<typeof steppingClock>;
  /** Opens another events ledger on the same file (closed by cleanup). */
  reopen(options?: Omit<EventsLedgerOptions, 'store'>): EventsLedger;
  /** Registers something else to close before the directory is removed. */
  track(closable: Closable): void;
  cleanup(): Promise<void>;
}

export interface Closable {
  close(): void | Promise<void>;
}

export function makeTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'events-'));
}

export function openTempEvents(options: { generateId?: IdGenerator; now?: () => number } = {}): TempEvents {
  const dir = makeTempDir();
  const file = path.join(dir, 'events.db');
  const clock = steppingClock();
  const closables: Closable[] = [];
  const ledger = openEventsLedger(file, { generateId: options.generateId ?? sequentialIds(), now: options.now ?? clock });
  closables.push(ledger);
  return {
    ledger,
    dir,
    file,
    clock,
    reopen(reopenOptions = {}) {
      const other = openEventsLedger(file, reopenOptions);
      closables.push(other);
      return other;
    },
    track(closable) {
      closables.push(closable);
    },
    async cleanup() {
      for (const closable of closables) {
        try {
          await closable.close();
        } catch {
          // already closed
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Something whose ledger file can be inspected: a ledger (its store's location), or a path. */
export type Inspectable = { store: { location: string } } | string;

/** Runs `work` on a connection of its own to the ledger's file, closed afterwards. */
export function withRawSqlite<T>(of: Inspectable, work: (sqlite: RawSqlite) => T): T {
  const sqlite = openRawSqlite(typeof of === 'string' ? of : of.store.location);
  try {
    return work(sqlite);
  } finally {
    sqlite.close();
  }
}

export function countEvents(ledger: Inspectable, channel?: string): number {
  return withRawSqlite(ledger, (sqlite) => {
    const row = (
      channel === undefined
        ? sqlite.prepare('SELECT count(*) AS n FROM events').get()
        : sqlite.prepare('SELECT count(*) AS n FROM events WHERE channel = ?').get(channel)
    ) as { n: number };
    return row.n;
  });
}

export function countRows(ledger: Inspectable, table: string): number {
  return withRawSqlite(ledger, (sqlite) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
}

export interface RawEventRow {
  id: string;
  channel: string;
  external_id: string;
  author: string | null;
  kind: string;
  payload: string;
  occurred_at: number;
  received_at: number;
  seq: number;
  prev_hash: string | null;
  hash: string;
}

export function rawEvents(ledger: Inspectable, channel?: string): RawEventRow[] {
  return withRawSqlite(
    ledger,
    (sqlite) =>
      (channel === undefined
        ? sqlite.prepare('SELECT * FROM events ORDER BY channel, seq').all()
        : sqlite.prepare('SELECT * FROM events WHERE channel = ? ORDER BY seq').all(channel)) as RawEventRow[],
  );
}

/** Every stored byte of the events table, in (channel, seq) order, as one string. */
export function eventsSnapshot(ledger: Inspectable): string {
  return withRawSqlite(ledger, (sqlite) =>
    JSON.stringify(
      sqlite
        .prepare(
          'SELECT id, channel, external_id, author, kind, hex(payload) AS payload, occurred_at, received_at, seq, prev_hash, hash ' +
            'FROM events ORDER BY channel, seq',
        )
        .all(),
    ),
  );
}

export function turnEventsSnapshot(ledger: Inspectable): string {
  return withRawSqlite(ledger, (sqlite) =>
    JSON.stringify(sqlite.prepare('SELECT * FROM turn_events ORDER BY turn_id, event_id').all()),
  );
}

/** The error a promise rejects with; fails the test when it resolves. */
export async function caught(promise: Promise<unknown>, what = 'the call'): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${what} to reject`);
}

/** Asserts a typed ledger error: its class, its code, and that isInstance recognizes it. */
export function expectLedgerError(error: unknown, type: abstract new (...args: never[]) => LedgerError, code: string): void {
  expect(error).toBeInstanceOf(type);
  expect(LedgerError.isInstance(error)).toBe(true);
  expect((error as LedgerError).code).toBe(code);
  expect((error as LedgerError).message.length).toBeGreaterThan(10);
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Asserts each channel's seqs are 1..n without gaps and each prevHash is the previous hash. */
export function expectIntactChains(rows: readonly RawEventRow[]): void {
  const byChannel = new Map<string, RawEventRow[]>();
  for (const row of rows) byChannel.set(row.channel, [...(byChannel.get(row.channel) ?? []), row]);
  for (const [channel, channelRows] of byChannel) {
    const sorted = [...channelRows].sort((left, right) => left.seq - right.seq);
    expect(
      sorted.map((row) => row.seq),
      `seqs of ${channel}`,
    ).toEqual(sorted.map((_, index) => index + 1));
    sorted.forEach((row, index) => {
      expect(row.prev_hash, `prevHash of ${channel}#${row.seq}`).toBe(index === 0 ? null : sorted[index - 1]?.hash);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Both engines: the same test on a SQLite file and on a fresh PostgreSQL database.

export type Engine = 'sqlite' | 'postgres';

/** The run's PostgreSQL server (vitest's global setup), or null where none is installed. */
export function postgresServer(): string | null {
  return inject('postgresUrl');
}

/** An events ledger on a fresh database of `engine`, with sequential ids and a stepping clock. */
export async function openEngineEvents(
  engine: Engine,
  label = 'events',
): Promise<{ ledger: EventsLedger; location: string; cleanup(): Promise<void> }> {
  let location: string;
  let dir: string | null = null;
  if (engine === 'sqlite') {
    dir = makeTempDir();
    location = path.join(dir, 'events.db');
  } else {
    const server = postgresServer();
    if (!server) throw new Error('no PostgreSQL server in this run');
    location = await freshPostgresDatabase(server, label);
  }
  const ledger = openEventsLedger(location, { generateId: sequentialIds(), now: steppingClock() });
  return {
    ledger,
    location,
    async cleanup() {
      await ledger.close().catch(() => undefined);
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
