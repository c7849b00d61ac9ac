// A real ledger for the server tests: a SQLite file in a temp folder (migrations applied as in
// production), both ledgers opened on it through their public API, and a seeded history with a
// flat compaction, a union-find compaction with topics, a fork and events.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import { storeOf } from '@agent-ledger/agents-ledger/testing';
import { createEventsLedger, type EventsLedger } from '@agent-ledger/events-ledger';
import type { Hono } from 'hono';
import { afterEach, beforeEach } from 'vitest';
import { createHttpApp, type HttpAppOptions } from '../src/index.ts';

export interface Fixture {
  folder: string;
  dbPath: string;
  ledger: AgentsLedger;
  events: EventsLedger;
  app: Hono;
  cleanup(): Promise<void>;
}

export function openFixture(options: Partial<HttpAppOptions> = {}): Fixture {
  const folder = mkdtempSync(path.join(tmpdir(), 'nexus-server-'));
  const dbPath = path.join(folder, 'ledger.db');
  // Both ledgers on one store, as `nexus serve` opens them.
  const ledger = openAgentsLedger(dbPath);
  const events = createEventsLedger({ store: storeOf(ledger) });
  const app = createHttpApp({ ledger, events, logError: () => {}, ...options });
  return {
    folder,
    dbPath,
    ledger,
    events,
    app,
    cleanup: async () => {
      await ledger.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

const SMALL = { contextWindow: 2000, reserveTokens: 200, keepRecentTokens: 120 };

const SUBJECTS = [
  'the postgres replica lags behind because vacuum and checkpoint settings are too timid',
  'prometheus alertmanager pages at night when the scrape of the exporter times out',
  'nightly restic backups go to an offsite bucket with a thirty day retention',
];

export interface Seeded {
  flatSessionId: string;
  flatCompactionId: string;
  /** A turn the flat compaction summarized (its first). */
  summarizedTurnId: string;
  unionSessionId: string;
  unionCompactionId: string;
  topicId: string;
  forkSessionId: string;
  eventId: string;
  channel: string;
}

export async function seed(ledger: AgentsLedger, events: EventsLedger): Promise<Seeded> {
  const channel = 'chat';
  const inbound = await events.append({ channel, externalId: 'm-1', author: 'ada', payload: { text: 'the zebra question' } });
  const flat = await ledger.createSession({ label: 'flat', settings: SMALL });
  const first = await ledger.appendTurn(flat.id, {
    role: 'user',
    content: 'Remember the word zebracorn: it names the migration plan.',
    eventIds: [inbound.event.id],
  });
  await ledger.appendTurn(flat.id, { role: 'assistant', content: 'Noted: zebracorn is the migration plan.' });
  for (let index = 0; index < 12; index += 1) {
    await ledger.appendTurn(flat.id, {
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `${SUBJECTS[index % 3]} (note ${index})`,
    });
  }
  const flatCompaction = await ledger.compact(flat.id, { trigger: 'manual' });
  await ledger.appendTurn(flat.id, { role: 'user', content: 'What was the plan called?' });

  const union = await ledger.createSession({ label: 'topics', settings: SMALL, strategy: 'union-find' });
  for (let index = 0; index < 24; index += 1) {
    await ledger.appendTurn(union.id, {
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `${SUBJECTS[index % 3]} (item ${index})`,
    });
  }
  const unionCompaction = await ledger.compact(union.id, { trigger: 'manual' });
  const topics = await ledger.topics(union.id);
  const fork = await ledger.forkFrom(first.id, { label: 'fork' });
  return {
    flatSessionId: flat.id,
    flatCompactionId: flatCompaction.id,
    summarizedTurnId: first.id,
    unionSessionId: union.id,
    unionCompactionId: unionCompaction.id,
    topicId: (topics[0] as { id: string }).id,
    forkSessionId: fork.session.id,
    eventId: inbound.event.id,
    channel,
  };
}

/** A request with a JSON body, as a client would send it. */
export function jsonRequest(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/**
 * Everything the public API can read back, as one string: every session (with its head), every
 * turn of every session's history, every event of the channels given. Two equal digests mean
 * nothing was written in between.
 */
export async function digest(ledger: AgentsLedger, events: EventsLedger, channels: string[]): Promise<string> {
  const sessions = await ledger.listSessions({ limit: 1000 });
  const parts: unknown[] = [sessions];
  for (const session of sessions) {
    if (!session.headTurnId) continue;
    for await (const turn of ledger.getFullHistory(session.headTurnId)) parts.push(turn);
    parts.push(await ledger.topics(session.id));
  }
  for (const channel of channels) parts.push(await events.list({ channel, limit: 100_000 }));
  // verify() counts the events of every channel, so an event written to a channel not listed shows too.
  parts.push(await events.verify());
  return JSON.stringify(parts);
}

export interface SeededApp {
  fixture: Fixture;
  seeded: Seeded;
  /** A request through the app; the body parsed as JSON when it is JSON. */
  call(
    path: string,
    init?: RequestInit,
  ): Promise<{
    status: number;
    // biome-ignore lint/suspicious/noExplicitAny: responses are checked by shape with toMatchObject
    body: any;
    text: string;
    headers: Headers;
  }>;
}

/** A fresh seeded ledger and its app for every test of the file that calls this. */
export function useSeededApp(): SeededApp {
  const api = {
    call: async (path: string, init?: RequestInit) => {
      const response = await api.fixture.app.request(path, init);
      const text = await response.text();
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: response.status, body, text, headers: response.headers };
    },
  } as SeededApp;
  beforeEach(async () => {
    api.fixture = openFixture();
    api.seeded = await seed(api.fixture.ledger, api.fixture.events);
  });
  afterEach(() => api.fixture.cleanup());
  return api;
}
