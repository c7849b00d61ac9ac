import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLedgerStore, type SessionRecord, type TurnRecord } from '@agent-ledger/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countEvents, eventsSnapshot, openTempEvents, type TempEvents, turnEventsSnapshot, withRawSqlite } from './helpers.ts';

const SESSION: SessionRecord = {
  id: 's_1',
  label: null,
  headTurnId: null,
  parentSessionId: null,
  forkedFromTurnId: null,
  rebuildFromRaw: false,
  ignoreCompactionsThroughDepth: null,
  contextWindow: 100_000,
  reserveTokens: 1_000,
  keepRecentTokens: 1_000,
  compactionStrategy: null,
  calibration: null,
  createdAt: 1_000,
};

const CITING_TURN: TurnRecord = {
  id: 't_1',
  sessionId: SESSION.id,
  parentTurnId: null,
  depth: 0,
  role: 'user',
  content: [{ type: 'text', text: 'cites two events' }],
  model: null,
  tokenCount: 4,
  timestamp: 1_000,
  toolCallCount: 0,
  metadata: null,
  turnType: 'normal',
  summary: null,
  summarizedThroughTurnId: null,
  firstKeptTurnId: null,
  tokensBefore: null,
  tokensAfter: null,
  trigger: null,
  strategy: null,
  summarizer: null,
  usageInputTokens: null,
  usageOutputTokens: null,
  latestCompactionId: null,
  cumulativeTokens: 4,
  searchText: 'cites two events',
  hash: null,
  coversFromDepth: null,
  previousCompactionId: null,
  summarizedThroughDepth: null,
};

let temp: TempEvents;
let eventIds: string[];
let turnId: string;

beforeEach(async () => {
  temp = openTempEvents();
  const results = await temp.ledger.appendBatch([
    { channel: 'a', externalId: '1', payload: { text: 'one' } },
    { channel: 'a', externalId: '2', payload: { text: 'two' } },
    { channel: 'b', externalId: '1', payload: { text: 'three' } },
  ]);
  eventIds = results.map((result) => result.event.id);
  // A turn citing the first two events, written through the store as the agents ledger would.
  const store = openLedgerStore(temp.file);
  temp.track(store);
  await store.insertSession(SESSION);
  turnId = CITING_TURN.id;
  const outcome = await store.appendToSession({
    sessionId: SESSION.id,
    expectedHeadTurnId: null,
    turns: [CITING_TURN],
    eventLinks: eventIds.slice(0, 2).map((eventId) => ({ turnId, eventId })),
  });
  expect(outcome).toEqual({ written: true });
});
afterEach(() => temp.cleanup());

/** Runs `sql` on a connection of its own to the file, as any other program could. */
function refusedSql(sql: string, table: 'events' | 'turn_events'): void {
  const snapshot = [eventsSnapshot(temp.ledger), turnEventsSnapshot(temp.ledger)];
  withRawSqlite(temp.ledger, (sqlite) => {
    expect(() => sqlite.prepare(sql).run(), sql).toThrow(new RegExp(`${table} (are|is) append-only`));
  });
  expect([eventsSnapshot(temp.ledger), turnEventsSnapshot(temp.ledger)]).toEqual(snapshot);
}

describe('the database refuses changes to events', () => {
  it.each([
    'UPDATE events SET payload = \'{"text":"evil"}\' WHERE channel = \'a\' AND seq = 1',
    'UPDATE events SET seq = seq + 10',
    "UPDATE events SET hash = 'x', prev_hash = NULL",
    "UPDATE events SET author = 'mallory' WHERE author IS NULL",
  ])('%s', (sql) => {
    refusedSql(sql, 'events');
  });

  it.each(['DELETE FROM events', "DELETE FROM events WHERE channel = 'b'", "DELETE FROM events WHERE channel = 'a' AND seq = 2"])(
    '%s',
    (sql) => {
      refusedSql(sql, 'events');
    },
  );

  it('an upsert that would update a stored event is refused too', () => {
    refusedSql(
      'INSERT INTO events SELECT * FROM events WHERE true ON CONFLICT(id) DO UPDATE SET payload = \'{"text":"evil"}\'',
      'events',
    );
  });

  it('update and delete as query builders write them (quoted identifiers, bound values) are refused', () => {
    const snapshot = eventsSnapshot(temp.ledger);
    withRawSqlite(temp.ledger, (sqlite) => {
      expect(() => sqlite.prepare('update "events" set "author" = ?').run('mallory')).toThrow(/append-only/);
      expect(() => sqlite.prepare('delete from "events" where "events"."channel" = ?').run('a')).toThrow(/append-only/);
    });
    expect(eventsSnapshot(temp.ledger)).toBe(snapshot);
    expect(countEvents(temp.ledger)).toBe(3);
  });

  it('a refused statement rolls back the whole transaction it is part of', () => {
    const snapshot = eventsSnapshot(temp.ledger);
    withRawSqlite(temp.ledger, (sqlite) => {
      const rewrite = sqlite.transaction(() => {
        sqlite.prepare("INSERT INTO events SELECT 'e_new', 'z', 'x', NULL, 'message', '1', 1, 1, 1, NULL, 'h', NULL").run();
        sqlite.prepare('DELETE FROM events WHERE channel = ?').run('a');
      });
      expect(() => rewrite()).toThrow(/append-only/);
    });
    expect(eventsSnapshot(temp.ledger)).toBe(snapshot);
  });

  it('INSERT OR REPLACE cannot overwrite a stored event', () => {
    // REPLACE deletes the conflicting row without firing DELETE triggers unless recursive_triggers
    // is on; a BEFORE INSERT trigger refuses the conflicting insert either way.
    refusedSql(
      'INSERT OR REPLACE INTO events (id, channel, external_id, author, kind, payload, occurred_at, received_at, seq, prev_hash, hash) ' +
        `SELECT id, channel, external_id, author, kind, '{"text":"evil"}', occurred_at, received_at, seq, prev_hash, hash FROM events WHERE id = '${eventIds[0]}'`,
      'events',
    );
  });
});

describe('the database refuses changes to turn_events', () => {
  it.each([
    `UPDATE turn_events SET event_id = 'e_other'`,
    'UPDATE turn_events SET turn_id = turn_id',
    'DELETE FROM turn_events',
    "DELETE FROM turn_events WHERE event_id = 'e_000001'",
  ])('%s', (sql) => {
    expect(turnEventsSnapshot(temp.ledger)).toContain(turnId);
    refusedSql(sql, 'turn_events');
  });

  it('update and delete on turn_events as query builders write them are refused', () => {
    const snapshot = turnEventsSnapshot(temp.ledger);
    withRawSqlite(temp.ledger, (sqlite) => {
      expect(() => sqlite.prepare('update "turn_events" set "event_id" = ?').run(eventIds[2])).toThrow(/append-only/);
      expect(() => sqlite.prepare('delete from "turn_events"').run()).toThrow(/append-only/);
    });
    expect(turnEventsSnapshot(temp.ledger)).toBe(snapshot);
  });
});

describe('no source file changes or removes events', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));

  function sourceFiles(): string[] {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'node_modules') walk(full);
        } else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
          files.push(full);
        }
      }
    };
    for (const group of ['packages', 'apps']) {
      const groupDir = path.join(root, group);
      for (const entry of fs.readdirSync(groupDir, { withFileTypes: true })) {
        const src = path.join(groupDir, entry.name, 'src');
        if (entry.isDirectory() && fs.existsSync(src)) walk(src);
      }
    }
    return files;
  }

  // SQL text (any quoting of the table name) and drizzle calls that would change or remove rows.
  const FORBIDDEN: RegExp[] = [
    /\bUPDATE\s+(?:OR\s+\w+\s+)?["'`[]?(?:turn_)?events\b/i,
    /\bDELETE\s+FROM\s+["'`[]?(?:turn_)?events\b/i,
    /\b(?:INSERT\s+OR\s+)?REPLACE\s+INTO\s+["'`[]?(?:turn_)?events\b/i,
    /\.(?:update|delete)\(\s*(?:events|turnEvents)\s*\)/,
  ];

  function offences(text: string): string[] {
    return FORBIDDEN.flatMap((pattern) => {
      const match = pattern.exec(text);
      return match ? [match[0]] : [];
    });
  }

  it('the patterns catch what they are meant to catch, and only that', () => {
    for (const bad of [
      'db.prepare("UPDATE events SET payload = ?")',
      "sqlite.exec('DELETE FROM events')",
      'db.prepare("DELETE FROM events")',
      'UPDATE OR IGNORE turn_events SET x = 1',
      'run(`update "events" set x = 1`)',
      'DELETE FROM `turn_events` WHERE 1',
      'INSERT OR REPLACE INTO events VALUES (?)',
      'tx.update(events).set({})',
      'db.delete(turnEvents).run()',
    ]) {
      expect(offences(bad), bad).not.toEqual([]);
    }
    for (const fine of [
      'UPDATE agent_turns SET has_children = 1',
      'UPDATE agent_sessions SET head_turn_id = ?',
      'db.update(agentSessions).set({})',
      'SELECT * FROM events',
      'INSERT INTO events VALUES (?)',
      'DELETE FROM events_archive',
    ]) {
      expect(offences(fine), fine).toEqual([]);
    }
  });

  it('no file under packages/*/src or apps/*/src holds such a statement or call', () => {
    const files = sourceFiles();
    const relative = files.map((file) => path.relative(root, file));
    // The scan really reads the sources that write these tables: since the store seam, the SQLite
    // store's events and turns (the turn→event links an append writes), and the events ledger.
    expect(relative).toContain(path.join('packages', 'store-sqlite', 'src', 'event-queries.ts'));
    expect(relative).toContain(path.join('packages', 'store-sqlite', 'src', 'turn-queries.ts'));
    expect(relative).toContain(path.join('packages', 'events-ledger', 'src', 'append-events.ts'));
    const found = files.flatMap((file) =>
      offences(fs.readFileSync(file, 'utf8')).map((match) => `${path.relative(root, file)}: ${match}`),
    );
    expect(found).toEqual([]);
  });
});
