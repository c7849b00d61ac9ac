// Full-text search over events on a real SQLite file: the author and every string of the payload
// are searchable, filters narrow, pages follow one another, hostile text never throws, and
// searching writes nothing.

import { InvalidInputError, LedgerError, SearchSyntaxError } from '@agent-ledger/core';
import { HOSTILE_QUERIES } from '@agent-ledger/core/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppendEventInput, EventHit, EventSearchOptions, EventSearchResult, EventsLedger } from '../src/index.ts';
import { countRows, eventsSnapshot, openTempEvents, rawEvents, type TempEvents, withRawSqlite } from './helpers.ts';

const BASE = 1_720_000_000_000;
const HOUR = 3_600_000;

interface Planned extends AppendEventInput {
  index: number;
}

/** 30 events over two channels, three authors and two kinds; every third mentions a capybara. */
function planned(index: number): Planned {
  const channel = index % 2 === 0 ? 'discord:#ops' : 'slack:general';
  const author = [`alice`, `bob`, null][index % 3] ?? null;
  const kind = index % 5 === 0 ? 'reaction' : 'message';
  const mention = index % 3 === 0 ? 'capybara' : 'marmot';
  return {
    index,
    channel,
    externalId: `x${index}`,
    author,
    kind,
    occurredAt: BASE + index * HOUR,
    payload: {
      text: `Deploy ${mention} build ${index} to staging`,
      meta: { tags: ['walrus', index % 4 === 0 ? 'urgent' : 'routine'], count: 12345 },
      thread: index === 7 ? [{ reply: 'the pangolin answered' }] : [],
    },
  };
}

let temp: TempEvents;
let ledger: EventsLedger;
const plans: Planned[] = [];
const ids: string[] = [];
let before: string;

beforeAll(async () => {
  temp = openTempEvents();
  ledger = temp.ledger;
  for (let index = 0; index < 30; index += 1) {
    const plan = planned(index);
    plans.push(plan);
    const { index: _index, ...input } = plan;
    ids.push((await ledger.append(input)).event.id);
  }
  before = eventsSnapshot(ledger);
});

afterAll(() => temp?.cleanup());

function eventId(index: number): string {
  const value = ids[index];
  if (value === undefined) throw new Error(`no event ${index}`);
  return value;
}

async function found(query: string, options: EventSearchOptions = {}): Promise<string[]> {
  const result = await ledger.search(query, { limit: 200, ...options });
  return result.hits.map((hit) => hit.eventId).sort();
}

function expected(predicate: (plan: Planned) => boolean): string[] {
  return plans
    .filter(predicate)
    .map((plan) => eventId(plan.index))
    .sort();
}

function expectWellFormed(result: EventSearchResult, what: string): void {
  expect(Array.isArray(result.hits), what).toBe(true);
  expect(result.nextCursor === null || typeof result.nextCursor === 'string', what).toBe(true);
  for (const hit of result.hits) {
    expect(typeof hit.eventId, what).toBe('string');
    expect(Number.isFinite(hit.score), what).toBe(true);
  }
}

describe('what is searchable', () => {
  it('finds events by the words of their payload strings, nested ones included', async () => {
    expect(await found('capybara')).toEqual(expected((plan) => plan.index % 3 === 0));
    expect(await found('marmot')).toEqual(expected((plan) => plan.index % 3 !== 0));
    expect(await found('walrus')).toEqual(expected(() => true));
    expect(await found('urgent')).toEqual(expected((plan) => plan.index % 4 === 0));
    expect(await found('pangolin')).toEqual([eventId(7)]);
    // Numbers that are not strings are not indexed; numbers inside strings are.
    expect(await found('12345')).toEqual([]);
    expect(await found('build 17')).toEqual([eventId(17)]);
  });

  it('finds events by their author', async () => {
    expect(await found('alice')).toEqual(expected((plan) => plan.author === 'alice'));
    expect(await found('bob pangolin')).toEqual([eventId(7)]);
    // No event of bob's mentions a capybara: every word cannot match, so any word may.
    expect(await found('bob capybara')).toEqual(expected((plan) => plan.author === 'bob' || plan.index % 3 === 0));
  });

  it('hits carry the event id, channel, seq, author, time, a marked snippet and the event', async () => {
    const result = await ledger.search('pangolin');
    expect(result.hits).toHaveLength(1);
    const hit = result.hits[0] as EventHit;
    const stored = await ledger.get(eventId(7));
    expect(hit).toMatchObject({
      eventId: eventId(7),
      channel: 'slack:general',
      seq: stored.seq,
      author: 'bob',
      occurredAt: BASE + 7 * HOUR,
    });
    expect(hit.seq).toBe(4);
    expect(hit.snippet).toContain('[pangolin]');
    expect(hit.snippet).toMatch(/\[[^\]]+\]/);
    expect(hit.event).toEqual(stored);
    expect(result.nextCursor).toBeNull();
    for (const each of (await ledger.search('capybara', { limit: 200 })).hits) expect(each.snippet).toContain('[capybara]');
  });
});

describe('filters', () => {
  it('channel, author and kind narrow the hits', async () => {
    expect(await found('walrus', { channel: 'discord:#ops' })).toEqual(expected((plan) => plan.channel === 'discord:#ops'));
    expect(await found('walrus', { channel: 'nope' })).toEqual([]);
    expect(await found('walrus', { author: 'bob' })).toEqual(expected((plan) => plan.author === 'bob'));
    expect(await found('walrus', { kind: 'reaction' })).toEqual(expected((plan) => plan.kind === 'reaction'));
  });

  it('since and until are inclusive bounds on occurredAt', async () => {
    const at = (index: number) => BASE + index * HOUR;
    expect(await found('walrus', { since: at(20) })).toEqual(expected((plan) => plan.index >= 20));
    expect(await found('walrus', { until: at(5) })).toEqual(expected((plan) => plan.index <= 5));
    expect(await found('walrus', { since: at(9), until: at(9) })).toEqual([eventId(9)]);
    expect(await found('walrus', { since: at(9) + 1, until: at(10) - 1 })).toEqual([]);
  });

  it('filters combine', async () => {
    const at = (index: number) => BASE + index * HOUR;
    expect(await found('capybara', { channel: 'discord:#ops', author: 'alice', since: at(1), until: at(28) })).toEqual(
      expected(
        (plan) =>
          plan.index % 3 === 0 &&
          plan.channel === 'discord:#ops' &&
          plan.author === 'alice' &&
          plan.index >= 1 &&
          plan.index <= 28,
      ),
    );
    expect(await found('walrus', { kind: 'reaction', channel: 'slack:general' })).toEqual(
      expected((plan) => plan.kind === 'reaction' && plan.channel === 'slack:general'),
    );
  });
});

describe('pagination', () => {
  it('following nextCursor with limit 3 visits every hit exactly once, in score order', async () => {
    const all = await ledger.search('walrus staging', { limit: 200 });
    expect(all.hits).toHaveLength(30);
    const visited: EventHit[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ledger.search('walrus staging', { limit: 3, cursor });
      pages += 1;
      visited.push(...page.hits);
      if (page.nextCursor) expect(page.hits).toHaveLength(3);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && pages < 100);
    expect(pages).toBe(10);
    expect(visited.map((hit) => hit.eventId)).toEqual(all.hits.map((hit) => hit.eventId));
    expect(new Set(visited.map((hit) => hit.eventId)).size).toBe(30);
    const scores = visited.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((left, right) => left - right));
  });

  it('a malformed cursor or a bad limit is an InvalidInputError', async () => {
    for (const cursor of ['nope', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('[0.5]').toString('base64url')]) {
      await expect(ledger.search('walrus', { cursor })).rejects.toBeInstanceOf(InvalidInputError);
    }
    for (const limit of [0, 201, 2.5]) await expect(ledger.search('walrus', { limit })).rejects.toBeInstanceOf(InvalidInputError);
  });
});

describe('hostile query text', () => {
  it('never throws in the default mode', async () => {
    expect(HOSTILE_QUERIES.length).toBeGreaterThanOrEqual(60);
    for (const query of HOSTILE_QUERIES) {
      for (const options of [
        {},
        { channel: 'discord:#ops', limit: 2 },
        { author: 'alice', since: BASE },
      ] as EventSearchOptions[]) {
        const what = JSON.stringify(query.slice(0, 60));
        const result = await ledger.search(query, options).catch((error: unknown) => {
          throw new Error(`${what} threw ${String(error)}`);
        });
        expectWellFormed(result, what);
      }
    }
  });

  it('in advanced mode answers or throws SearchSyntaxError, never a driver error', async () => {
    let syntaxErrors = 0;
    for (const query of HOSTILE_QUERIES) {
      const what = JSON.stringify(query.slice(0, 60));
      try {
        expectWellFormed(await ledger.search(query, { advanced: true }), what);
      } catch (error) {
        expect(error, what).toBeInstanceOf(SearchSyntaxError);
        expect(LedgerError.isInstance(error), what).toBe(true);
        expect((error as LedgerError).code, what).toBe('SEARCH_SYNTAX');
        syntaxErrors += 1;
      }
    }
    expect(syntaxErrors).toBeGreaterThan(5);
    expect((await ledger.search('"deploy capybara"', { advanced: true, limit: 200 })).hits).toHaveLength(10);
  });

  it('property: arbitrary unicode never throws in the default mode', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), async (query) => {
        expectWellFormed(await ledger.search(query, { limit: 5 }), JSON.stringify(query));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves the events as they were, their chains verified and the index in step', async () => {
    expect(eventsSnapshot(ledger)).toBe(before);
    expect(countRows(ledger, 'events')).toBe(30);
    expect(rawEvents(ledger)).toHaveLength(30);
    expect((await ledger.verify()).ok).toBe(true);
    expect(await ledger.checkSearchIndex()).toBeNull();
  });
});

describe('checkSearchIndex', () => {
  it('reports an index that no longer matches the events', async () => {
    const local = openTempEvents();
    try {
      await local.ledger.append({ channel: 'c', externalId: 'a', payload: { text: 'quiet otter' } });
      await local.ledger.append({ channel: 'c', externalId: 'b', payload: { text: 'loud heron' } });
      expect(await local.ledger.checkSearchIndex()).toBeNull();
      // Another program drops the event from the index behind the ledger's back.
      withRawSqlite(local.ledger, (sqlite) => {
        const row = sqlite.prepare("SELECT rowid, search_text FROM events WHERE external_id = 'a'").get() as {
          rowid: number;
          search_text: string;
        };
        sqlite
          .prepare("INSERT INTO events_fts (events_fts, rowid, search_text) VALUES ('delete', ?, ?)")
          .run(row.rowid, row.search_text);
      });
      expect(await local.ledger.checkSearchIndex()).toEqual(expect.any(String));
      expect((await local.ledger.search('otter')).hits).toEqual([]);
      expect((await local.ledger.search('heron')).hits).toHaveLength(1);
    } finally {
      local.cleanup();
    }
  });
});
