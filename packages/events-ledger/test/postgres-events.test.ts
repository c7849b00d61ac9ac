// The events ledger on PostgreSQL, checked against SQLite: one script (appends single and batched
// over several channels, re-deliveries alike and different, a refused batch, reads by page and
// range, verify with and without a checkpoint, search with its filters and hostile text) runs on a
// SQLite file and on a fresh PostgreSQL database with the same ids and clock, and what it saw must
// be the same on both: events with their seqs and hashes, verify results, search hits (as sets:
// each engine ranks with its own function).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSearchResult, EventsLedger } from '../src/index.ts';
import { collect, type Engine, openEngineEvents, postgresServer } from './helpers.ts';

const server = postgresServer();

type Seen = Record<string, unknown>;

/** A step's value, or what it threw: one engine failing a step shows in that step's comparison. */
async function attempt<T>(work: () => Promise<T>): Promise<T | { threw: string }> {
  try {
    return await work();
  } catch (error) {
    return { threw: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

function hitSet(result: EventSearchResult | { threw: string }) {
  if ('threw' in result) return result;
  for (const hit of result.hits) expect(hit.snippet, hit.eventId).toMatch(/\[[^\]]+\]/);
  return result.hits.map((hit) => ({ eventId: hit.eventId, channel: hit.channel, seq: hit.seq })).sort((a, b) => a.seq - b.seq);
}

async function script(events: EventsLedger): Promise<Seen> {
  const seen: Seen = {};
  const words = ['deploy', 'rollback', 'zebrafish', 'migration', 'alert', 'pager'];
  const appended: Array<Awaited<ReturnType<EventsLedger['append']>>> = [];
  for (let index = 0; index < 12; index += 1) {
    appended.push(
      await events.append({
        channel: index % 3 === 0 ? 'ops' : 'chat',
        externalId: `m${index}`,
        author: index % 2 === 0 ? 'ana' : 'bo',
        kind: index % 4 === 0 ? 'alert' : 'message',
        payload: {
          text: `${words[index % words.length]} step ${index} of the ${words[(index + 2) % words.length]} plan`,
          n: index,
        },
        occurredAt: 1_700_000_000_000 + index * 60_000,
      }),
    );
  }
  seen.appended = appended;
  // Byte for byte: payloads come back with their object keys in the order they were appended.
  seen.serialized = JSON.stringify(await events.get(appended[0]?.event.id as string));
  seen.batch = await attempt(() =>
    events.appendBatch([
      { channel: 'ops', externalId: 'b1', payload: { text: 'zebrafish paged twice' } },
      { channel: 'chat', externalId: 'b2', payload: ['a', 1, null, { nested: true }], occurredAt: '2026-01-02T03:04:05Z' },
      { channel: 'fresh', externalId: 'b3', payload: 'a plain string payload', kind: 'note' },
      { channel: 'ops', externalId: 'm0', payload: { text: 'deploy step 0 of the zebrafish plan', n: 0 } },
    ]),
  );
  // Re-deliveries: the same content is a duplicate; different content a conflict; nothing written.
  seen.redelivered = await attempt(() =>
    events.append({
      channel: 'chat',
      externalId: 'm1',
      author: 'bo',
      kind: 'message',
      payload: { text: 'rollback step 1 of the migration plan', n: 1 },
      occurredAt: 1_700_000_060_000,
    }),
  );
  seen.conflicting = await attempt(() => events.append({ channel: 'chat', externalId: 'm1', payload: { text: 'edited' } }));
  // A bad item refuses the whole batch: nothing of it is written.
  seen.refused = await attempt(() =>
    events.appendBatch([
      { channel: 'ops', externalId: 'ok-but-refused', payload: 1 },
      { channel: '', externalId: 'bad', payload: 2 },
    ]),
  );
  seen.tails = {
    ops: await attempt(() => events.list({ channel: 'ops', limit: 100 })),
    chat: await attempt(() => events.list({ channel: 'chat', afterSeq: 3, limit: 3 })),
    fresh: await attempt(() => events.list({ channel: 'fresh' })),
    none: await attempt(() => events.list({ channel: 'no-such-channel' })),
  };
  seen.range = await attempt(() =>
    collect(events.range({ channel: 'chat', fromSeq: 2, toSeq: 6, since: 1_700_000_000_000, pageSize: 2 })),
  );
  seen.get = await attempt(() => events.get(appended[5]?.event.id as string));
  seen.missing = await attempt(() => events.get('ev_missing'));

  const checkpoint = await events.checkpoint();
  seen.checkpoint = checkpoint;
  seen.checkpointOps = await attempt(() => events.checkpoint({ channel: 'ops' }));
  await events.append({ channel: 'ops', externalId: 'after', payload: { text: 'after the checkpoint' } });
  seen.verify = await attempt(() => events.verify());
  seen.verifyChat = await attempt(() => events.verify({ channel: 'chat' }));
  seen.verifyCheckpoint = await attempt(() => events.verify({ checkpoint }));
  // A checkpoint of a longer chain than the ledger holds: verify says the channel is now shorter.
  const longer = {
    ...checkpoint,
    channels: checkpoint.channels.map((head) => (head.channel === 'chat' ? { ...head, seq: head.seq + 5 } : head)),
  };
  seen.verifyLonger = await attempt(() => events.verify({ checkpoint: longer }));
  seen.searchIndex = await attempt(() => events.checkSearchIndex());

  seen.search = {
    zebrafish: hitSet(await attempt(() => events.search('zebrafish'))),
    channel: hitSet(await attempt(() => events.search('zebrafish', { channel: 'ops' }))),
    author: hitSet(await attempt(() => events.search('plan', { author: 'ana', limit: 50 }))),
    kind: hitSet(await attempt(() => events.search('plan', { kind: 'alert', limit: 50 }))),
    window: hitSet(await attempt(() => events.search('plan', { since: 1_700_000_120_000, until: 1_700_000_300_000, limit: 50 }))),
    twoWords: hitSet(await attempt(() => events.search('rollback pager', { limit: 50 }))),
    nothing: hitSet(await attempt(() => events.search('xylophone'))),
    hostile: hitSet(await attempt(() => events.search('"unbalanced (quote OR* NEAR'))),
  };
  // Paging two at a time returns every hit once.
  const paged: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await events.search('plan', { limit: 2, cursor });
    paged.push(...page.hits.map((hit) => hit.eventId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(new Set(paged).size).toBe(paged.length);
  expect(paged.sort()).toEqual((await events.search('plan', { limit: 200 })).hits.map((hit) => hit.eventId).sort());
  seen.paged = paged;
  return seen;
}

describe.skipIf(server === null)(
  `the events ledger on PostgreSQL sees what it sees on SQLite${server === null ? ' (skipped: no PostgreSQL server here, apt-get install postgresql)' : ''}`,
  () => {
    const cleanups: Array<() => Promise<void>> = [];
    const seen: Partial<Record<Engine, Seen>> = {};

    beforeAll(async () => {
      for (const engine of ['sqlite', 'postgres'] as const) {
        const temp = await openEngineEvents(engine, 'events_script');
        cleanups.push(temp.cleanup);
        seen[engine] = await script(temp.ledger);
      }
    }, 120_000);
    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
    });

    it('the script ran on both, and verify found the chains whole', () => {
      for (const engine of ['sqlite', 'postgres'] as const) {
        expect(seen[engine]?.verify, engine).toMatchObject({ ok: true, channels: 3 });
        expect(seen[engine]?.verifyCheckpoint, engine).toMatchObject({ ok: true });
        expect(seen[engine]?.verifyLonger, engine).toMatchObject({ ok: false });
        expect(seen[engine]?.redelivered, engine).toMatchObject({ duplicate: true, conflict: null });
        expect(seen[engine]?.conflicting, engine).toMatchObject({ duplicate: true, conflict: expect.anything() });
        expect(seen[engine]?.refused, engine).toHaveProperty('threw');
      }
    });

    const steps = [
      ['appended', 'appended events: ids, seqs, hashes, payloads'],
      ['serialized', 'an event serialized: payload keys in the order they were appended'],
      ['batch', 'a batch over several channels with a re-delivery in it'],
      ['redelivered', 'a re-delivery of the same content'],
      ['conflicting', 'a re-delivery with different content'],
      ['refused', 'a batch refused for one bad item'],
      ['tails', 'pages of each channel'],
      ['range', 'a range, paged'],
      ['get', 'an event by id'],
      ['missing', 'an unknown event id'],
      ['checkpoint', 'a checkpoint'],
      ['checkpointOps', 'a checkpoint of one channel'],
      ['verify', 'verify'],
      ['verifyChat', 'verify of one channel'],
      ['verifyCheckpoint', 'verify against a checkpoint'],
      ['verifyLonger', 'verify against a checkpoint of a longer chain'],
      ['searchIndex', 'the search index check'],
      ['search', 'search hits (filters, several words, hostile text)'],
      ['paged', 'search paged'],
    ] as const;
    for (const [key, title] of steps) {
      it(`${title}: the same on both engines`, () => {
        expect(seen.postgres?.[key], key).toEqual(seen.sqlite?.[key]);
      });
    }
  },
);
