// The event part of the store contract: the one idempotent, all-or-nothing batch append (seq and
// the hash chain continued from each channel's tail, even under concurrent appenders), the reads
// (by id, pages of a channel, tails, channels) and append-only as the interface shows it. Through
// the async interface only; the seal here is a stand-in for the events ledger's hash.

import { describe, expect, it } from 'vitest';
import type { EventRecord, EventTail } from '../index.ts';
import { batchAtomicityCases } from './event-batch-contract.ts';
import { batchOf, type Draft, expectChain, recordFor, wholeChannel } from './event-drafts.ts';
import { type OpenStore, openPerCase } from './open-per-case.ts';
import type { StoreUnderTest } from './store-under-test.ts';

export function eventContract(subject: StoreUnderTest): void {
  describe('events', () => {
    const open = openPerCase(subject);
    eventAppendCases(open);
    eventRedeliveryCases(open);
    batchAtomicityCases(open);
    eventChainCases(open);
    eventReadCases(open);
  });
}

/** A batch over channels: each continues its channel's tail and reads back as written. */
function eventAppendCases(open: OpenStore): void {
  it('appends a batch over several channels: each channel continues its own tail, every record reads back as written', async () => {
    const store = await open();
    const first = batchOf([
      { channel: 'a', externalId: '1', author: 'ana', payload: '{"text":"héllo \\"quoted\\" ☃ 𝄞"}' },
      { channel: 'b', externalId: '1' },
      { channel: 'a', externalId: '2' },
    ]);
    const appended = await store.appendEvents(first);
    expect(appended.map(({ record, duplicate }) => [record.channel, record.seq, duplicate])).toEqual([
      ['a', 1, false],
      ['b', 1, false],
      ['a', 2, false],
    ]);
    // The tail of `a` for its second event is the first one, sealed in this same batch.
    expect(first.sealed).toEqual([
      { index: 0, tail: null },
      { index: 1, tail: null },
      { index: 2, tail: { seq: 1, hash: appended[0]?.record.hash } },
    ]);
    for (const { record } of appended) expect(await store.getEvent(record.id)).toEqual(record);
    expect((await store.getEvent(appended[0]?.record.id ?? ''))?.payload).toBe('{"text":"héllo \\"quoted\\" ☃ 𝄞"}');
    expect(await store.getEvent('e_nowhere')).toBeUndefined();

    const second = batchOf([{ channel: 'b', externalId: '2' }]);
    const [next] = await store.appendEvents(second);
    expect(second.sealed).toEqual([{ index: 0, tail: { seq: 1, hash: appended[1]?.record.hash } }]);
    expect(next?.record).toMatchObject({ seq: 2, prevHash: appended[1]?.record.hash });
    expectChain(await wholeChannel(store, 'a'));
    expectChain(await wholeChannel(store, 'b'));
    expect(await store.channelTail('a')).toEqual({ seq: 2, hash: appended[2]?.record.hash });
    expect(await store.channelTail('nowhere')).toBeUndefined();
  });

  it('an empty batch writes nothing and returns nothing', async () => {
    const store = await open();
    expect(await store.appendEvents(batchOf([]))).toEqual([]);
    expect(await store.eventChannels()).toEqual([]);
  });
}

/** Re-delivered keys: the stored event is returned, nothing is sealed or written for it. */
function eventRedeliveryCases(open: OpenStore): void {
  it('a re-delivered key returns the stored event and writes nothing, whatever the re-delivery says', async () => {
    const store = await open();
    const [original] = await store.appendEvents(batchOf([{ channel: 'a', externalId: 'x', payload: '{"v":1}' }]));
    const again = batchOf([
      { channel: 'a', externalId: 'x', payload: '{"v":2}', author: 'mallory' },
      { channel: 'a', externalId: 'y' },
    ]);
    const appended = await store.appendEvents(again);
    expect(appended[0]).toEqual({ record: original?.record, duplicate: true });
    expect(appended[1]?.duplicate).toBe(false);
    expect(appended[1]?.record.seq).toBe(2);
    // The duplicate was never sealed: no seq was spent on it.
    expect(again.sealed.map((call) => call.index)).toEqual([1]);
    expect(await store.getEvent(original?.record.id ?? '')).toEqual(original?.record);
    expect((await wholeChannel(store, 'a')).map((record) => record.externalId)).toEqual(['x', 'y']);

    // The same key twice in one batch: the second is a duplicate of the first.
    const twice = await store.appendEvents(
      batchOf([
        { channel: 'b', externalId: 'k' },
        { channel: 'b', externalId: 'k' },
      ]),
    );
    expect(twice.map((each) => each.duplicate)).toEqual([false, true]);
    expect(twice[1]?.record).toEqual(twice[0]?.record);
    expect(await wholeChannel(store, 'b')).toHaveLength(1);
    // The key is per channel: the same externalId on another channel is a new event.
    const [elsewhere] = await store.appendEvents(batchOf([{ channel: 'c', externalId: 'x' }]));
    expect(elsewhere).toMatchObject({ duplicate: false, record: { channel: 'c', seq: 1 } });
  });

  it('a large batch mixing re-deliveries and new events over several channels: each found, each new one sealed once', async () => {
    const store = await open();
    const key = (index: number): Draft => ({ channel: index % 4 === 0 ? 'side' : 'main', externalId: `k${index}` });
    const earlier = await store.appendEvents(batchOf(Array.from({ length: 300 }, (_, index) => key(index * 3))));
    const storedIds = new Map(earlier.map(({ record }) => [`${record.channel}/${record.externalId}`, record.id]));
    const mixed = batchOf(Array.from({ length: 900 }, (_, index) => key(index)));
    const appended = await store.appendEvents(mixed);
    appended.forEach(({ record, duplicate }, index) => {
      expect(record.externalId).toBe(`k${index}`);
      expect(duplicate).toBe(index % 3 === 0);
      if (duplicate) expect(record.id).toBe(storedIds.get(`${record.channel}/${record.externalId}`));
    });
    expect(mixed.sealed.map((call) => call.index)).toEqual(
      Array.from({ length: 900 }, (_, index) => index).filter((index) => index % 3 !== 0),
    );
    const main = await wholeChannel(store, 'main');
    const side = await wholeChannel(store, 'side');
    expect(main.length + side.length).toBe(900);
    expectChain(main);
    expectChain(side);
  });
}

/** One chain per channel, under concurrent appenders, that nothing changes once written. */
function eventChainCases(open: OpenStore): void {
  it('concurrent appenders on one channel through one store: gapless seq, one chain, no tail sealed twice', async () => {
    const store = await open();
    const seenTails: Array<EventTail | null> = [];
    const appendOne = (drafts: Draft[]) =>
      store.appendEvents({
        events: drafts,
        seal: (index, tail) => {
          seenTails.push(tail);
          return recordFor(drafts[index] as Draft, tail);
        },
      });
    const calls = Array.from({ length: 60 }, (_, call) =>
      call % 4 === 0
        ? appendOne([0, 1, 2].map((item) => ({ channel: 'busy', externalId: `${call}.${item}` })))
        : appendOne([{ channel: 'busy', externalId: `${call}` }]),
    );
    // Re-deliveries racing the first deliveries of the same keys.
    const redeliveries = Array.from({ length: 10 }, (_, call) => appendOne([{ channel: 'busy', externalId: `${call * 4 + 1}` }]));
    const results = await Promise.all([...calls, ...redeliveries]);
    const chain = await wholeChannel(store, 'busy');
    expect(chain).toHaveLength(15 * 3 + 45);
    expectChain(chain);
    // No two seals ever continued the same tail.
    expect(new Set(seenTails.map((tail) => tail?.seq ?? 0)).size).toBe(seenTails.length);
    expect(seenTails).toHaveLength(chain.length);
    // Every result is the stored event of its key.
    const byKey = new Map(chain.map((record) => [record.externalId, record]));
    for (const { record } of results.flat()) expect(byKey.get(record.externalId)).toEqual(record);
    expect(results.flat().filter((result) => !result.duplicate)).toHaveLength(chain.length);
  });

  it('append-only as the interface shows it: no operation changes or removes an event, a stored seq cannot be taken again', async () => {
    const store = await open();
    const changing = /^(update|delete|remove|replace|upsert|overwrite|rewrite|truncate|clear|drop|set|put|patch|edit)/i;
    const eventOperations = Object.keys(store).filter((name) => /event|channel/i.test(name));
    expect(eventOperations).toEqual(expect.arrayContaining(['appendEvents', 'getEvent', 'eventPage']));
    expect(eventOperations.filter((name) => changing.test(name))).toEqual([]);

    const [stored] = await store.appendEvents(batchOf([{ channel: 'a', externalId: '1' }]));
    const before = await wholeChannel(store, 'a');
    // A seal that tries to put a new event at the stored seq (a forged tail) is refused.
    await expect(
      store.appendEvents({
        events: [{ channel: 'a', externalId: '2' }],
        seal: () => recordFor({ channel: 'a', externalId: '2' }, null),
      }),
    ).rejects.toThrow();
    expect(await wholeChannel(store, 'a')).toEqual(before);
    expect(await store.getEvent(stored?.record.id ?? '')).toEqual(stored?.record);
  });
}

/** Reading events: pages of a channel, the channels, the search index check. */
function eventReadCases(open: OpenStore): void {
  it('pages a channel in seq order after a cursor, within seq and time bounds', async () => {
    const store = await open();
    const drafts: Draft[] = Array.from({ length: 25 }, (_, index) => ({
      channel: 'paged',
      externalId: `p${index}`,
      occurredAt: 10_000 + (index % 5) * 100,
    }));
    await store.appendEvents(batchOf(drafts));
    await store.appendEvents(batchOf([{ channel: 'other', externalId: 'p1' }]));

    const seqsOf = (records: EventRecord[]) => records.map((record) => record.seq);
    const pages: number[][] = [];
    let afterSeq = 0;
    for (;;) {
      const page = await store.eventPage({ channel: 'paged', afterSeq, limit: 10 });
      if (page.length === 0) break;
      pages.push(seqsOf(page));
      afterSeq = page.at(-1)?.seq ?? afterSeq;
    }
    expect(pages).toEqual([
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      [11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
      [21, 22, 23, 24, 25],
    ]);
    expect(seqsOf(await store.eventPage({ channel: 'paged', fromSeq: 5, toSeq: 8, limit: 100 }))).toEqual([5, 6, 7, 8]);
    expect(seqsOf(await store.eventPage({ channel: 'paged', fromSeq: 5, afterSeq: 6, limit: 2 }))).toEqual([7, 8]);
    // occurredAt 10_100 and 10_200 are seqs 2, 3, 7, 8, 12, 13, …
    expect(seqsOf(await store.eventPage({ channel: 'paged', since: 10_100, until: 10_200, limit: 4 }))).toEqual([2, 3, 7, 8]);
    expect(seqsOf(await store.eventPage({ channel: 'paged', since: 10_400, toSeq: 15, limit: 100 }))).toEqual([5, 10, 15]);
    expect(await store.eventPage({ channel: 'paged', afterSeq: 25, limit: 10 })).toEqual([]);
    expect(await store.eventPage({ channel: 'none', limit: 10 })).toEqual([]);
    expect((await store.eventAtSeq('paged', 12))?.externalId).toBe('p11');
    expect(await store.eventAtSeq('paged', 26)).toBeUndefined();
    expect(await store.eventAtSeq('other', 2)).toBeUndefined();
  });

  it('lists the channels holding events, in name order', async () => {
    const store = await open();
    expect(await store.eventChannels()).toEqual([]);
    await store.appendEvents(
      batchOf(['slack:C2', 'email', 'slack:C10', 'Zulu', 'email'].map((channel, index) => ({ channel, externalId: `${index}` }))),
    );
    expect(await store.eventChannels()).toEqual(['Zulu', 'email', 'slack:C10', 'slack:C2']);
  });

  it('the search index check passes on a fresh store and after appends', async () => {
    const store = await open();
    expect(await store.checkEventSearchIndex()).toBeNull();
    await store.appendEvents(
      batchOf([
        { channel: 'a', externalId: '1' },
        { channel: 'a', externalId: '2' },
      ]),
    );
    expect(await store.checkEventSearchIndex()).toBeNull();
  });
}
