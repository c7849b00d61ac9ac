import { EventNotFoundError, InvalidInputError, LedgerError, PayloadTooLargeError } from '@agent-ledger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_FIELD_LENGTH, MAX_PAYLOAD_BYTES } from '../src/index.ts';
import { caught, collect, countEvents, eventsSnapshot, expectLedgerError, openTempEvents, type TempEvents } from './helpers.ts';

let temp: TempEvents;
let before: string;
beforeEach(async () => {
  temp = openTempEvents();
  // One stored event, so "nothing written" also means "nothing else changed".
  await temp.ledger.append({ channel: 'c', externalId: 'existing', payload: { ok: true } });
  before = eventsSnapshot(temp.ledger);
});
afterEach(() => temp.cleanup());

/** Appends `input` alone and in a batch after a valid item; both must be refused the same way, writing nothing. */
async function refused(input: unknown): Promise<LedgerError> {
  const alone = await caught(temp.ledger.append(input as never), 'append');
  const inBatch = await caught(
    temp.ledger.appendBatch([{ channel: 'c', externalId: 'valid', payload: 1 }, input as never]),
    'appendBatch',
  );
  expect(LedgerError.isInstance(alone), String(alone)).toBe(true);
  expect(LedgerError.isInstance(inBatch), String(inBatch)).toBe(true);
  expect((inBatch as LedgerError).code).toBe((alone as LedgerError).code);
  expect(eventsSnapshot(temp.ledger)).toBe(before);
  return alone as LedgerError;
}

async function refusedAsInvalid(input: unknown, field: string | RegExp): Promise<InvalidInputError> {
  const error = await refused(input);
  expectLedgerError(error, InvalidInputError, 'INVALID_INPUT');
  if (typeof field === 'string') expect((error as InvalidInputError).field).toBe(field);
  else expect((error as InvalidInputError).field).toMatch(field);
  return error as InvalidInputError;
}

describe('missing and empty fields', () => {
  it.each([
    ['null', null],
    ['a string', 'hello'],
    ['an array', [{ channel: 'c', externalId: 'x', payload: 1 }]],
    ['a number', 7],
  ])('an event that is %s, not an object', async (_name, input) => {
    const error = await refused(input);
    expectLedgerError(error, InvalidInputError, 'INVALID_INPUT');
  });

  it.each([
    ['channel', { externalId: 'x', payload: 1 }],
    ['externalId', { channel: 'c', payload: 1 }],
    ['payload', { channel: 'c', externalId: 'x' }],
    ['payload', { channel: 'c', externalId: 'x', payload: undefined }],
  ])('a missing %s is named', async (field, input) => {
    await refusedAsInvalid(input, field);
  });

  it.each([
    ['channel', { channel: '', externalId: 'x', payload: 1 }],
    ['channel', { channel: '   ', externalId: 'x', payload: 1 }],
    ['externalId', { channel: 'c', externalId: '', payload: 1 }],
    ['externalId', { channel: 'c', externalId: '\t\n', payload: 1 }],
    ['kind', { channel: 'c', externalId: 'x', payload: 1, kind: '' }],
    ['author', { channel: 'c', externalId: 'x', payload: 1, author: '' }],
  ])('an empty or blank %s is refused', async (field, input) => {
    await refusedAsInvalid(input, field);
  });

  it.each([
    ['channel', { channel: 5, externalId: 'x', payload: 1 }],
    ['externalId', { channel: 'c', externalId: 12, payload: 1 }],
    ['kind', { channel: 'c', externalId: 'x', payload: 1, kind: ['message'] }],
    ['author', { channel: 'c', externalId: 'x', payload: 1, author: { name: 'ann' } }],
  ])('a %s that is not a string is refused', async (field, input) => {
    await refusedAsInvalid(input, field);
  });
});

describe('payloads that are not JSON', () => {
  class Custom {
    value = 1;
  }
  const cases: [string, unknown, string][] = [
    ['NaN', Number.NaN, 'payload'],
    ['Infinity', Number.POSITIVE_INFINITY, 'payload'],
    ['-Infinity', Number.NEGATIVE_INFINITY, 'payload'],
    ['a function', () => 1, 'payload'],
    ['a Date', new Date(0), 'payload'],
    ['a Map', new Map([['a', 1]]), 'payload'],
    ['a Set', new Set([1]), 'payload'],
    ['a class instance', new Custom(), 'payload'],
    ['a BigInt', 10n, 'payload'],
    ['a Symbol', Symbol('s'), 'payload'],
    ['NaN nested in an object', { a: { b: Number.NaN } }, 'payload.a.b'],
    ['a Date nested in an array', { list: [1, new Date(0)] }, 'payload.list[1]'],
    ['a BigInt nested in an array', [1, 2, 3n], 'payload[2]'],
    ['a function as a member', { run: () => 1 }, 'payload.run'],
    ['undefined inside an array', [1, undefined], 'payload[1]'],
  ];
  it.each(cases)('%s is refused with the path of the bad value', async (_name, payload, field) => {
    await refusedAsInvalid({ channel: 'c', externalId: 'x', payload }, field);
  });

  it('a cyclic payload is refused with a typed error', async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    await refusedAsInvalid({ channel: 'c', externalId: 'x', payload: cyclic }, /^payload/);
  });

  it('a deeply nested payload under the size limit is stored or refused with a typed error', async () => {
    // 100,000 nested arrays are 200,001 bytes of JSON: under MAX_PAYLOAD_BYTES.
    let deep: unknown = 0;
    for (let depth = 0; depth < 100_000; depth += 1) deep = [deep];
    const error = await caught(temp.ledger.append({ channel: 'c', externalId: 'deep', payload: deep })).catch(() => null);
    if (error !== null) expect(LedgerError.isInstance(error), String(error)).toBe(true);
    else expect(countEvents(temp.ledger)).toBe(2);
  });

  it('a sparse array is stored as JSON or refused with a typed error', async () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point of the test
    const sparse = [, 1];
    const outcome = await temp.ledger
      .append({ channel: 'c', externalId: 'sparse', payload: sparse })
      .then((result) => ({ stored: result.event.payload }))
      .catch((error: unknown) => ({ error }));
    if ('error' in outcome) expect(LedgerError.isInstance(outcome.error), String(outcome.error)).toBe(true);
    else expect(outcome.stored).toEqual([null, 1]);
  });
});

describe('size limits', () => {
  it('a payload over MAX_PAYLOAD_BYTES of canonical UTF-8 is refused with PayloadTooLargeError', async () => {
    // A JSON string of n characters is n + 2 bytes with its quotes.
    const error = await refused({ channel: 'c', externalId: 'big', payload: 'x'.repeat(MAX_PAYLOAD_BYTES - 1) });
    expectLedgerError(error, PayloadTooLargeError, 'PAYLOAD_TOO_LARGE');
    expect(error).toMatchObject({ bytes: MAX_PAYLOAD_BYTES + 1, limit: MAX_PAYLOAD_BYTES });
  });

  it('a payload of exactly MAX_PAYLOAD_BYTES is stored', async () => {
    const { event } = await temp.ledger.append({ channel: 'c', externalId: 'max', payload: 'x'.repeat(MAX_PAYLOAD_BYTES - 2) });
    expect(event.seq).toBe(2);
    expect(countEvents(temp.ledger)).toBe(2);
  });

  it('counts bytes, not characters: two-byte characters reach the limit at half the length', async () => {
    const text = 'é'.repeat(MAX_PAYLOAD_BYTES / 2);
    expect(text.length).toBeLessThan(MAX_PAYLOAD_BYTES);
    const error = await refused({ channel: 'c', externalId: 'wide', payload: { text } });
    expectLedgerError(error, PayloadTooLargeError, 'PAYLOAD_TOO_LARGE');
    expect((error as PayloadTooLargeError).bytes).toBe(Buffer.byteLength(`{"text":"${text}"}`, 'utf8'));
  });

  it('measures the canonical form: whitespace-free, so pretty input does not count', async () => {
    // Members dropped because they are undefined do not count either.
    const payload = { a: 'x'.repeat(MAX_PAYLOAD_BYTES - 8), gone: undefined };
    expect(Buffer.byteLength('{"a":""}') + MAX_PAYLOAD_BYTES - 8).toBe(MAX_PAYLOAD_BYTES);
    const { event } = await temp.ledger.append({ channel: 'c', externalId: 'canonical-size', payload });
    expect(event.seq).toBe(2);
  });

  it.each(['channel', 'externalId', 'author', 'kind'])(
    'a %s over MAX_FIELD_LENGTH is refused; at the limit it is stored',
    async (field) => {
      const base = { channel: 'c', externalId: 'x', payload: 1 };
      await refusedAsInvalid({ ...base, [field]: 'y'.repeat(MAX_FIELD_LENGTH + 1) }, field);
      const { event } = await temp.ledger.append({ ...base, externalId: `ok-${field}`, [field]: 'y'.repeat(MAX_FIELD_LENGTH) });
      expect((event as unknown as Record<string, unknown>)[field]).toBe('y'.repeat(MAX_FIELD_LENGTH));
    },
  );
});

describe('occurredAt', () => {
  it.each([
    ['a string that is no date', 'yesterday'],
    ['an empty string', ''],
    ['a negative number', -1],
    ['a fraction', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['beyond the safe integers', Number.MAX_SAFE_INTEGER + 2],
    ['a date before 1970', '1969-12-31T23:59:59Z'],
    ['a boolean', true],
    ['an object', { at: 1 }],
    ['a Date object', new Date(0)],
  ])('%s is refused', async (_name, occurredAt) => {
    await refusedAsInvalid({ channel: 'c', externalId: 'x', payload: 1, occurredAt }, 'occurredAt');
  });
});

describe('unknown event ids', () => {
  // (turnsCiting of an unknown event is the agents ledger's now: packages/agents-ledger/test/event-links.test.ts.)
  it('get throws EventNotFoundError naming the id', async () => {
    for (const attempt of [temp.ledger.get('e_missing')]) {
      const error = await caught(attempt);
      expectLedgerError(error, EventNotFoundError, 'EVENT_NOT_FOUND');
      expect((error as EventNotFoundError).eventId).toBe('e_missing');
      expect((error as Error).message).toContain('e_missing');
    }
    expect(eventsSnapshot(temp.ledger)).toBe(before);
  });
});

describe('bad read options', () => {
  it.each([0, -1, 2.5, Number.NaN])('list with limit %s is refused', async (limit) => {
    const error = await caught(temp.ledger.list({ channel: 'c', limit }));
    expectLedgerError(error, InvalidInputError, 'INVALID_INPUT');
    expect((error as InvalidInputError).field).toBe('limit');
  });

  it('range with pageSize 0 is refused', async () => {
    const error = await caught(collect(temp.ledger.range({ channel: 'c', pageSize: 0 })));
    expectLedgerError(error, InvalidInputError, 'INVALID_INPUT');
  });
});
