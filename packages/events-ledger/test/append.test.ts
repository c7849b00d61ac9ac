import { InvalidInputError, StorageError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppendEventInput, canonicalJson, eventHash, openEventsLedger } from '../src/index.ts';
import {
  caught,
  countEvents,
  eventsSnapshot,
  expectIntactChains,
  expectLedgerError,
  openTempEvents,
  rawEvents,
  START_TIME,
  steppingClock,
  type TempEvents,
} from './helpers.ts';

let temp: TempEvents | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

function message(channel: string, externalId: string, payload: unknown = { text: externalId }): AppendEventInput {
  return { channel, externalId, payload };
}

describe('sequence numbers and the hash chain', () => {
  it('numbers each channel 1, 2, 3 on its own, however the channels interleave', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    const order = ['a', 'b', 'a', 'c', 'a', 'b', 'c', 'c', 'a'];
    const seqs: string[] = [];
    for (const [index, channel] of order.entries()) {
      const { event } = await ledger.append(message(channel, `m${index}`));
      seqs.push(`${channel}${event.seq}`);
    }
    expect(seqs).toEqual(['a1', 'b1', 'a2', 'c1', 'a3', 'b2', 'c2', 'c3', 'a4']);
    expect(countEvents(ledger, 'a')).toBe(4);
    expect(countEvents(ledger, 'b')).toBe(2);
    expect(countEvents(ledger, 'c')).toBe(3);
    expectIntactChains(rawEvents(ledger));
  });

  it('links each event to the previous hash of its own channel; the first of a channel has prevHash null', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    const a1 = (await ledger.append(message('a', '1'))).event;
    const b1 = (await ledger.append(message('b', '1'))).event;
    const a2 = (await ledger.append(message('a', '2'))).event;
    const b2 = (await ledger.append(message('b', '2'))).event;
    const a3 = (await ledger.append(message('a', '3'))).event;
    expect(a1.prevHash).toBeNull();
    expect(b1.prevHash).toBeNull();
    expect(a2.prevHash).toBe(a1.hash);
    expect(a3.prevHash).toBe(a2.hash);
    expect(b2.prevHash).toBe(b1.hash);
    expect(new Set([a1, a2, a3, b1, b2].map((event) => event.hash)).size).toBe(5);
    for (const event of [a1, a2, a3, b1, b2]) expect(event.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stores a hash that is the SHA-256 of the stored fields and the previous hash, recomputable by anyone', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    await ledger.append(message('a', '1', { n: 1 }));
    const { event } = await ledger.append({ ...message('a', '2', { n: 2, list: [1, 'x'] }), author: 'ann', kind: 'reaction' });
    const { hash, ...fields } = event;
    expect(eventHash({ ...fields, payload: canonicalJson(event.payload) })).toBe(hash);
    expect(eventHash({ ...fields, payload: canonicalJson(event.payload), seq: 3 })).not.toBe(hash);
    const stored = rawEvents(ledger, 'a')[1];
    expect(stored?.hash).toBe(hash);
    expect(await ledger.get(event.id)).toEqual(event);
  });

  it('continues the chain after the file is closed and reopened', async () => {
    temp = openTempEvents();
    const first = (await temp.ledger.append(message('a', '1'))).event;
    await temp.ledger.close();
    const reopened = temp.reopen({ generateId: () => 'e_reopened', now: steppingClock(START_TIME * 2) });
    const second = await reopened.append(message('a', '2'));
    expect(second.event.id).toBe('e_reopened');
    expect(second.event.seq).toBe(2);
    expect(second.event.prevHash).toBe(first.hash);
  }, 10_000);
});

describe('idempotent re-delivery', () => {
  it('returns the stored event with duplicate: true and writes no row, even with a different payload', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    const original = await ledger.append({ ...message('a', 'ext-1', { text: 'hello' }), author: 'ann' });
    expect(original.duplicate).toBe(false);
    const before = eventsSnapshot(ledger);

    const again = await ledger.append(message('a', 'ext-1', { text: 'hello' }));
    const changed = await ledger.append({ channel: 'a', externalId: 'ext-1', payload: { text: 'edited' }, kind: 'edit' });
    for (const redelivered of [again, changed]) {
      expect(redelivered.duplicate).toBe(true);
      expect(redelivered.event).toEqual(original.event);
    }
    expect(changed.event.payload).toEqual({ text: 'hello' });
    expect(countEvents(ledger)).toBe(1);
    expect(eventsSnapshot(ledger)).toBe(before);

    // No sequence number was used up by the re-deliveries.
    const next = await ledger.append(message('a', 'ext-2'));
    expect(next.event.seq).toBe(2);
    expect(next.event.prevHash).toBe(original.event.hash);
  });

  it('treats the same externalId on another channel as a different event', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    const onA = await ledger.append(message('a', 'same'));
    const onB = await ledger.append(message('b', 'same'));
    expect(onB.duplicate).toBe(false);
    expect(onB.event.id).not.toBe(onA.event.id);
    expect(onB.event.seq).toBe(1);
    expect(countEvents(ledger)).toBe(2);
  });

  it('in one batch, a repeated (channel, externalId) is stored once and the repeat returns the first', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    await ledger.append(message('a', 'old', { v: 'stored before' }));
    const results = await ledger.appendBatch([
      message('a', 'x', { v: 1 }),
      message('b', 'x', { v: 2 }),
      message('a', 'x', { v: 'different' }),
      message('a', 'old', { v: 'again' }),
      message('a', 'y', { v: 3 }),
      message('b', 'x', { v: 4 }),
    ]);
    expect(results.map((result) => result.duplicate)).toEqual([false, false, true, true, false, true]);
    expect(results.map((result) => `${result.event.channel}${result.event.seq}`)).toEqual(['a2', 'b1', 'a2', 'a1', 'a3', 'b1']);
    expect(results[2]?.event).toEqual(results[0]?.event);
    expect(results[2]?.event.payload).toEqual({ v: 1 });
    expect(results[5]?.event).toEqual(results[1]?.event);
    expect(results[3]?.event.payload).toEqual({ v: 'stored before' });
    expect(countEvents(ledger)).toBe(4);
    expectIntactChains(rawEvents(ledger));
  });
});

describe('batches are all or nothing', () => {
  it('one invalid item refuses the whole batch: nothing is written and no seq is used up', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    await ledger.append(message('a', 'first'));
    const before = eventsSnapshot(ledger);
    const error = await caught(
      ledger.appendBatch([
        message('a', 'ok-1'),
        message('b', 'ok-2'),
        { channel: 'a', externalId: '', payload: 1 },
        message('a', 'ok-3'),
      ]),
    );
    expectLedgerError(error, InvalidInputError, 'INVALID_INPUT');
    expect((error as InvalidInputError).field).toBe('externalId');
    expect(eventsSnapshot(ledger)).toBe(before);
    const next = await ledger.append(message('a', 'ok-1'));
    expect(next.duplicate).toBe(false);
    expect(next.event.seq).toBe(2);
  });

  it('a write that fails inside the transaction rolls back the items already inserted', async () => {
    // An id generator that hands out the same id twice makes the second insert hit the primary key.
    temp = openTempEvents({ generateId: () => 'e_collision' });
    const { ledger } = temp;
    const error = await caught(ledger.appendBatch([message('a', '1'), message('a', '2'), message('a', '3')]));
    expectLedgerError(error, StorageError, 'STORAGE_ERROR');
    expect(countEvents(ledger)).toBe(0);
  });

  it('an empty batch writes nothing and returns nothing', async () => {
    temp = openTempEvents();
    expect(await temp.ledger.appendBatch([])).toEqual([]);
    expect(countEvents(temp.ledger)).toBe(0);
  });
});

describe('payloads are stored as canonical JSON', () => {
  it('key order does not change the stored payload text nor the hash', async () => {
    const payloadA = { b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' }, é: null, A: true };
    const payloadB = { A: true, é: null, a: { c: 'x', d: [3, { y: 2, z: 1 }] }, b: 1 };
    const stored: { payload: string; hash: string }[] = [];
    for (const payload of [payloadA, payloadB]) {
      temp = openTempEvents();
      const { event } = await temp.ledger.append({ channel: 'c', externalId: 'x', payload, occurredAt: 5 });
      const row = rawEvents(temp.ledger)[0];
      stored.push({ payload: row?.payload ?? '', hash: event.hash });
      await temp.cleanup();
      temp = undefined;
    }
    expect(stored[0]?.payload).toBe('{"A":true,"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1,"é":null}');
    expect(stored[1]).toEqual(stored[0]);
  });

  it('stores no whitespace, keeps array order, drops undefined object members, and reads back the same value', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    const payload = { text: 'a b\n"c"', list: [3, 1, 2], nested: { keep: 0, drop: undefined }, unicode: '日本 😀' };
    const { event } = await ledger.append({ channel: 'c', externalId: 'x', payload });
    expect(rawEvents(ledger)[0]?.payload).toBe('{"list":[3,1,2],"nested":{"keep":0},"text":"a b\\n\\"c\\"","unicode":"日本 😀"}');
    expect(event.payload).toEqual({ text: 'a b\n"c"', list: [3, 1, 2], nested: { keep: 0 }, unicode: '日本 😀' });
    expect((await ledger.get(event.id)).payload).toEqual(event.payload);
  });

  it('accepts every kind of JSON value at the top level, and objects without a prototype', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { z: 1, a: 2 });
    const payloads: unknown[] = [null, 0, -1.5, 'text', true, false, [], {}, bare];
    const results = await ledger.appendBatch(
      payloads.map((payload, index) => ({ channel: 'c', externalId: `p${index}`, payload })),
    );
    expect(results.map((result) => result.event.payload)).toEqual([null, 0, -1.5, 'text', true, false, [], {}, { a: 2, z: 1 }]);
    expect(rawEvents(ledger).map((row) => row.payload)).toEqual([
      'null',
      '0',
      '-1.5',
      '"text"',
      'true',
      'false',
      '[]',
      '{}',
      '{"a":2,"z":1}',
    ]);
  });
});

describe('times and defaults', () => {
  it('occurredAt accepts ms since the epoch and ISO 8601 strings', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    const inputs: [number | string, number][] = [
      [1_717_171_717_171, 1_717_171_717_171],
      [0, 0],
      ['2024-05-31T16:08:37.171Z', Date.UTC(2024, 4, 31, 16, 8, 37, 171)],
      ['2024-05-31T18:08:37.171+02:00', Date.UTC(2024, 4, 31, 16, 8, 37, 171)],
      ['2024-01-01', Date.UTC(2024, 0, 1)],
    ];
    for (const [index, [occurredAt, expected]] of inputs.entries()) {
      const { event } = await ledger.append({ ...message('c', `t${index}`), occurredAt });
      expect(event.occurredAt, String(occurredAt)).toBe(expected);
      expect(rawEvents(ledger)[index]?.occurred_at).toBe(expected);
    }
  });

  it('defaults kind to message, author to null, and occurredAt and receivedAt to the injected clock', async () => {
    temp = openTempEvents();
    const { ledger, clock } = temp;
    const { event } = await ledger.append({ channel: 'c', externalId: 'x', payload: 'hi' });
    expect(clock.calls).toBe(1);
    expect(event).toMatchObject({
      kind: 'message',
      author: null,
      occurredAt: START_TIME + 1000,
      receivedAt: START_TIME + 1000,
      id: 'e_000001',
    });
    const explicit = await ledger.append({
      channel: 'c',
      externalId: 'y',
      payload: 'hi',
      occurredAt: 42,
      author: 'bob',
      kind: 'edit',
    });
    expect(explicit.event).toMatchObject({ kind: 'edit', author: 'bob', occurredAt: 42, receivedAt: START_TIME + 2000 });
  });

  it('a batch is received at one moment: every event of it has the same receivedAt', async () => {
    temp = openTempEvents();
    const { ledger } = temp;
    const results = await ledger.appendBatch([message('a', '1'), message('b', '1'), message('a', '2')]);
    const received = new Set(results.map((result) => result.event.receivedAt));
    expect(received.size).toBe(1);
    expect(results.map((result) => result.event.occurredAt)).toEqual(results.map((result) => result.event.receivedAt));
  });
});

describe('ids', () => {
  it('uses the injected id generator, and random prefixed ids by default', async () => {
    temp = openTempEvents();
    const withDefaults = openEventsLedger(temp.file);
    temp.track(withDefaults);
    const injected = await temp.ledger.append(message('a', '1'));
    const random = await withDefaults.append(message('a', '2'));
    expect(injected.event.id).toBe('e_000001');
    expect(random.event.id).toMatch(/^e_[0-9A-Za-z]{12}$/);
    expect(random.event.prevHash).toBe(injected.event.hash);
  });
});
