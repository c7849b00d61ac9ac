// `nexus search` and `nexus doctor` against a real database file: the JSON shapes, turns and
// events interleaved by score, the kind-selecting options, pagination, hostile text, and doctor's
// verdict on a healthy and a desynchronized index.

import { type AgentsLedger, createAgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import { sequentialIds } from '@agent-ledger/core';
import { HOSTILE_QUERIES } from '@agent-ledger/core/testing';
import { createEventsLedger, type EventsLedger, openEventsLedger } from '@agent-ledger/events-ledger';
import { openLedgerStore } from '@agent-ledger/store';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './run-cli.ts';

const BASE = 1_730_000_000_000;
const MINUTE = 60_000;

interface TurnOut {
  turnId: string;
  sessionId: string;
  turnType: 'normal' | 'compaction';
  via: string | null;
  role: string | null;
  timestamp: number;
  snippet: string;
  score: number;
}
interface EventOut {
  eventId: string;
  channel: string;
  seq: number;
  author: string | null;
  timestamp: number;
  snippet: string;
  score: number;
}
type HitOut = TurnOut | EventOut;
interface SearchOut {
  hits: HitOut[];
  nextCursor: string | null;
}

let temp: ReturnType<typeof tempFolder>;
let sourceId: string;
let forkId: string;
const turnIds: string[] = [];
const forkTurnIds: string[] = [];
const eventIds: string[] = [];
let newestCompaction: string;

/** Opens both ledgers on one store of the test file, runs `work`, and closes them. */
async function withLedgers<T>(work: (ledger: AgentsLedger, events: EventsLedger) => Promise<T>): Promise<T> {
  const store = openLedgerStore(temp.dbPath);
  const ledger = createAgentsLedger({
    store,
    generateId: sequentialIds(),
    summarizer: {
      name: 'marker',
      summarize: async (input) => ({ text: `Recap of ${input.turns.length} turns.`, usage: { inputTokens: 1, outputTokens: 1 } }),
    },
  });
  const events = createEventsLedger({ store, generateId: sequentialIds() });
  try {
    return await work(ledger, events);
  } finally {
    await store.close();
  }
}

/** Rows in the file, counted as another program would: the reads must not have written any. */
async function counts(): Promise<Record<string, number>> {
  const sqlite = openRawSqlite(temp.dbPath, { readonly: true });
  try {
    const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return {
      turns: count('agent_turns'),
      sessions: count('agent_sessions'),
      events: count('events'),
      links: count('turn_events'),
      schema: count('sqlite_master'),
    };
  } finally {
    sqlite.close();
  }
}

beforeAll(async () => {
  temp = tempFolder();
  await withLedgers(async (ledger, events) => {
    const source = await ledger.createSession({ settings: { contextWindow: 1400, reserveTokens: 150, keepRecentTokens: 350 } });
    sourceId = source.id;
    for (let index = 0; index < 40; index += 1) {
      const words = [index === 1 ? 'zebrafish-42' : '', index % 4 === 0 ? 'capybara' : ''].join(' ');
      const turn = await ledger.appendTurn(source.id, {
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `Turn ${index} ${words} about the deploy plan and the schema migration for release ${index}.`.repeat(6),
        timestamp: BASE + index * MINUTE,
        metadata: { author: index % 2 === 0 ? 'dana' : 'eli' },
      });
      turnIds.push(turn.id);
      if (index < 39 && (await ledger.shouldCompact(source.id))) await ledger.compact(source.id);
    }
    const fork = await ledger.forkFrom(turnIds[30] as string);
    forkId = fork.session.id;
    for (let index = 0; index < 3; index += 1) {
      const turn = await ledger.appendTurn(forkId, {
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `Fork capybara ${index}`,
      });
      forkTurnIds.push(turn.id);
    }
    newestCompaction = (await ledger.findLatestCompaction((await ledger.getSession(sourceId)).headTurnId as string))
      ?.id as string;
    for (let index = 0; index < 12; index += 1) {
      const { event } = await events.append({
        channel: index % 2 === 0 ? 'discord:#ops' : 'slack:eng',
        externalId: `m${index}`,
        author: index % 3 === 0 ? 'dana' : 'zed',
        // Lengths vary, so event scores spread across the turns' scores.
        payload: { text: `The capybara report ${index}${' with more detail'.repeat(index * 3)}` },
        occurredAt: BASE + index * MINUTE,
      });
      eventIds.push(event.id);
    }
    // Events without the word, so it is rare among events as it is among turns.
    for (let index = 0; index < 40; index += 1) {
      await events.append({ channel: 'noise', externalId: `n${index}`, payload: { text: `weather report ${index}` } });
    }
    let compactions = 0;
    for await (const turn of ledger.getFullHistory((await ledger.getSession(sourceId)).headTurnId as string, {
      ownTurnsOnly: true,
    }))
      if (turn.turnType === 'compaction') compactions += 1;
    expect(compactions).toBeGreaterThanOrEqual(3);
  });
  expect(newestCompaction).toMatch(/^t_/);
});

afterAll(() => temp?.cleanup());

async function search(args: string[], query: string): Promise<SearchOut> {
  const run = await runCli(['search', '--db', temp.dbPath, '--json', ...args, '--', query]);
  expect(run.code, run.stderr).toBe(0);
  return run.json() as SearchOut;
}

const isTurn = (hit: HitOut): hit is TurnOut => 'turnId' in hit;

describe('nexus search --json', () => {
  it('returns { hits, nextCursor } with turns and events interleaved by score', async () => {
    const result = await search(['--limit', '200'], 'capybara');
    expect(Object.keys(result).sort()).toEqual(['hits', 'nextCursor']);
    expect(result.nextCursor).toBeNull();
    const turns = result.hits.filter(isTurn);
    const events = result.hits.filter((hit): hit is EventOut => !isTurn(hit));
    expect(turns.length).toBeGreaterThan(0);
    expect(events.map((hit) => hit.eventId).sort()).toEqual([...eventIds].sort());
    for (const hit of turns) {
      expect(Object.keys(hit).sort()).toEqual([
        'role',
        'score',
        'sessionId',
        'snippet',
        'timestamp',
        'turnId',
        'turnType',
        'via',
      ]);
      expect(hit.snippet).toContain('[capybara]');
    }
    for (const hit of events) {
      expect(Object.keys(hit).sort()).toEqual(['author', 'channel', 'eventId', 'score', 'seq', 'snippet', 'timestamp']);
      expect(hit.snippet).toContain('[capybara]');
      expect(hit.seq).toBeGreaterThan(0);
    }
    const scores = result.hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((left, right) => left - right));
    // Interleaved: the kinds alternate somewhere in the ranking, not one block after the other.
    const kinds = result.hits.map((hit) => (isTurn(hit) ? 't' : 'e')).join('');
    expect(kinds).not.toMatch(/^t+e+$|^e+t+$/);
  });

  it('reports a summarized match as the compaction via the turn; --raw as the turn itself', async () => {
    const resolved = await search([], 'zebrafish');
    expect(resolved.hits).toEqual([
      expect.objectContaining({ turnId: newestCompaction, turnType: 'compaction', via: turnIds[1], sessionId: sourceId }),
    ]);
    const raw = await search(['--raw'], 'zebrafish');
    expect(raw.hits).toEqual([expect.objectContaining({ turnId: turnIds[1], turnType: 'normal', via: null, role: 'assistant' })]);
  });

  it('--channel gives events of that channel only; --session gives turns only', async () => {
    const channel = await search(['--channel', 'discord:#ops', '--limit', '200'], 'capybara');
    expect(channel.hits.every((hit) => !isTurn(hit) && hit.channel === 'discord:#ops')).toBe(true);
    expect(channel.hits).toHaveLength(6);

    const session = await search(['--session', forkId, '--raw', '--limit', '200'], 'capybara');
    expect(session.hits.every(isTurn)).toBe(true);
    const ids = session.hits.map((hit) => (hit as TurnOut).turnId);
    for (const id of forkTurnIds) expect(ids).toContain(id);
    // Inherited turns up to the fork point are on the fork's line; the source's later ones are not.
    expect(ids).toContain(turnIds[28]);
    expect(ids).not.toContain(turnIds[32]);

    const withForks = await search(['--session', sourceId, '--forks', '--raw', '--limit', '200'], 'capybara');
    const all = withForks.hits.map((hit) => (hit as TurnOut).turnId);
    for (const id of [...forkTurnIds, turnIds[32], turnIds[36]]) expect(all).toContain(id);
    const withoutForks = await search(['--session', sourceId, '--raw', '--limit', '200'], 'capybara');
    expect(withoutForks.hits.map((hit) => (hit as TurnOut).turnId)).not.toContain(forkTurnIds[0]);
  });

  it('--role, --type, --author, --since and --until filter', async () => {
    const users = await search(['--role', 'user', '--raw', '--limit', '200'], 'capybara');
    expect(users.hits.length).toBeGreaterThan(0);
    expect(users.hits.every((hit) => isTurn(hit) && hit.role === 'user')).toBe(true);
    const compactions = await search(['--type', 'compaction', '--raw', '--limit', '200'], 'recap');
    expect(compactions.hits.length).toBeGreaterThan(1);
    expect(compactions.hits.every((hit) => isTurn(hit) && hit.turnType === 'compaction')).toBe(true);
    const dana = await search(['--author', 'dana', '--raw', '--limit', '200'], 'capybara');
    expect(dana.hits.filter((hit) => !isTurn(hit)).map((hit) => (hit as EventOut).eventId)).toEqual(
      expect.arrayContaining([eventIds[0], eventIds[3], eventIds[6], eventIds[9]]),
    );
    expect(dana.hits.every((hit) => !('author' in hit) || hit.author === 'dana')).toBe(true);
    const since = new Date(BASE + 8 * MINUTE).toISOString();
    const window = await search(['--since', since, '--until', String(BASE + 9 * MINUTE), '--raw', '--limit', '200'], 'capybara');
    expect(window.hits.map((hit) => (isTurn(hit) ? hit.turnId : hit.eventId)).sort()).toEqual(
      [turnIds[8], eventIds[8], eventIds[9]].sort(),
    );
  });

  it('refuses mixed or malformed options, a bad cursor and an empty query with usage errors (exit 2)', async () => {
    const mixed = await runCli(['search', 'capybara', '--channel', 'c', '--session', sourceId, '--db', temp.dbPath, '--json']);
    expect(mixed.code).toBe(2);
    const role = await runCli(['search', 'capybara', '--role', 'system', '--db', temp.dbPath, '--json']);
    expect(role.code).toBe(2);
    const since = await runCli(['search', 'capybara', '--since', 'yesterday-ish', '--db', temp.dbPath, '--json']);
    expect(since.code).toBe(2);
    const cursor = await runCli(['search', 'capybara', '--cursor', '!!not-base64!!', '--db', temp.dbPath, '--json']);
    expect(cursor.code).toBe(2);
    expect((cursor.json() as { error: { code: string } }).error.code).toBe('INVALID_INPUT');
    for (const blank of ['', '  \t ']) {
      const empty = await runCli(['search', '--db', temp.dbPath, '--', blank]);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('give the words to search for');
    }
  });

  it('pages through one kind with --limit 3, each hit once', async () => {
    for (const args of [
      ['--channel', 'slack:eng'],
      ['--session', sourceId, '--raw'],
    ]) {
      const everything = await search([...args, '--limit', '200'], 'capybara');
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: SearchOut = await search([...args, '--limit', '3', ...(cursor ? ['--cursor', cursor] : [])], 'capybara');
        seen.push(...page.hits.map((hit) => (isTurn(hit) ? hit.turnId : hit.eventId)));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < 50);
      expect(seen, args.join(' ')).toEqual(everything.hits.map((hit) => (isTurn(hit) ? hit.turnId : hit.eventId)));
    }
  });

  // BUG: `nexus search` asks each side (turns, events) for `limit` hits, merges them by score and
  // cuts the merged list to `limit`, but the next cursor is each side's own nextCursor, which points
  // past *all* the hits that side returned. The hits cut off the merged page are never shown: here
  // 25 hits match (13 turns, 12 events) and pages of 3 show 13 of them. With the default limit 20 the
  // same happens whenever both sides have hits (e.g. 19 turns + 1 event: one is lost with
  // nextCursor null).
  it('pages through turns and events together with --limit 3, each hit exactly once', async () => {
    const everything = await search(['--raw', '--limit', '200'], 'capybara');
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: SearchOut = await search(['--raw', '--limit', '3', ...(cursor ? ['--cursor', cursor] : [])], 'capybara');
      seen.push(...page.hits.map((hit) => (isTurn(hit) ? hit.turnId : hit.eventId)));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 50);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(everything.hits.map((hit) => (isTurn(hit) ? hit.turnId : hit.eventId)).sort());
  });
});

describe('hostile text through nexus search', () => {
  it('never fails in the default mode; in --advanced mode answers or reports SEARCH_SYNTAX', async () => {
    const before = await counts();
    expect(HOSTILE_QUERIES.length).toBeGreaterThanOrEqual(60);
    let syntaxErrors = 0;
    for (const query of HOSTILE_QUERIES) {
      const what = JSON.stringify(query.slice(0, 60));
      // Nothing but blanks is no query at all: a usage mistake, said as one (checked above).
      if (query.trim() === '') continue;
      const plain = await runCli(['search', '--db', temp.dbPath, '--json', '--', query]);
      expect(plain.code, `${what}: ${plain.stderr}`).toBe(0);
      const result = plain.json() as SearchOut;
      expect(Array.isArray(result.hits), what).toBe(true);
      const raw = await runCli(['search', '--raw', '--db', temp.dbPath, '--', query]);
      expect(raw.code, `${what}: ${raw.stderr}`).toBe(0);

      const advanced = await runCli(['search', '--advanced', '--db', temp.dbPath, '--json', '--', query]);
      if (advanced.code === 0) {
        expect(Array.isArray((advanced.json() as SearchOut).hits), what).toBe(true);
      } else {
        expect(advanced.code, `${what}: ${advanced.stderr}`).toBe(1);
        expect((advanced.json() as { error: { code: string } }).error.code, what).toBe('SEARCH_SYNTAX');
        expect(advanced.stderr, what).not.toMatch(/internal error|SqliteError/);
        syntaxErrors += 1;
      }
    }
    expect(syntaxErrors).toBeGreaterThan(5);
    expect(await counts()).toEqual(before);
    const doctor = await runCli(['doctor', '--db', temp.dbPath, '--json']);
    expect(doctor.code).toBe(0);
    expect(doctor.json()).toEqual({ ok: true, problems: [] });
  });
});

describe('nexus doctor', () => {
  it('says ok (exit 0) on a healthy database, and names a desynchronized turn index (exit 1)', async () => {
    const local = tempFolder();
    try {
      const ledger = openAgentsLedger(local.dbPath);
      const session = await ledger.createSession({
        settings: { contextWindow: 1400, reserveTokens: 150, keepRecentTokens: 350 },
      });
      for (let index = 0; index < 30; index += 1) {
        await ledger.appendTurn(session.id, {
          role: index % 2 === 0 ? 'user' : 'assistant',
          content: `turn ${index} ${'word '.repeat(40)}`,
        });
        if (await ledger.shouldCompact(session.id)) await ledger.compact(session.id);
      }
      await ledger.forkFrom((await ledger.getSession(session.id)).headTurnId as string);
      ledger.close();

      const healthy = await runCli(['doctor', '--db', local.dbPath, '--json']);
      expect(healthy.code).toBe(0);
      expect(healthy.json()).toEqual({ ok: true, problems: [] });
      const text = await runCli(['doctor', '--db', local.dbPath]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^ok:/);

      const reopened = openRawSqlite(local.dbPath);
      const row = reopened.prepare('SELECT rowid, search_text FROM agent_turns ORDER BY rowid LIMIT 1 OFFSET 3').get() as {
        rowid: number;
        search_text: string;
      };
      reopened
        .prepare("INSERT INTO turns_fts (turns_fts, rowid, search_text) VALUES ('delete', ?, ?)")
        .run(row.rowid, row.search_text);
      reopened.close();

      const broken = await runCli(['doctor', '--db', local.dbPath, '--json']);
      expect(broken.code).toBe(1);
      const report = broken.json() as { ok: boolean; problems: Array<{ code: string; message: string; ids: string[] }> };
      expect(report.ok).toBe(false);
      expect(report.problems).toEqual([{ code: 'SEARCH_INDEX_MISMATCH', message: expect.any(String), ids: [] }]);
      const brokenText = await runCli(['doctor', '--db', local.dbPath]);
      expect(brokenText.code).toBe(1);
      expect(brokenText.stdout).toMatch(/^SEARCH_INDEX_MISMATCH: /m);
    } finally {
      local.cleanup();
    }
  });

  it('names a desynchronized event index too', async () => {
    const local = tempFolder();
    try {
      const events = openEventsLedger(local.dbPath);
      await events.append({ channel: 'c', externalId: 'a', author: 'dana', payload: { text: 'quiet otter' } });
      await events.close();
      const sqlite = openRawSqlite(local.dbPath);
      const row = sqlite.prepare('SELECT rowid, search_text FROM events').get() as {
        rowid: number;
        search_text: string;
      };
      sqlite
        .prepare("INSERT INTO events_fts (events_fts, rowid, search_text) VALUES ('delete', ?, ?)")
        .run(row.rowid, row.search_text);
      sqlite.close();
      const broken = await runCli(['doctor', '--db', local.dbPath, '--json']);
      expect(broken.code).toBe(1);
      expect(broken.json()).toEqual({
        ok: false,
        problems: [{ code: 'SEARCH_INDEX_MISMATCH', message: expect.stringMatching(/event search index/), ids: [] }],
      });
    } finally {
      local.cleanup();
    }
  });
});
