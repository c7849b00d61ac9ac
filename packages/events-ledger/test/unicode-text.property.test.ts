// Arbitrary unicode through the events ledger on both engines: names and payloads built from any
// code point plus the characters that break storage (lone surrogates, NUL) and the ones that only
// look odd (combining marks, bidi marks, BOM, noncharacters). Every event is either refused with
// InvalidInputError naming the first bad field, with nothing written, or stored so that it reads
// back exactly as sent, re-delivers as a duplicate, and every chain verifies. Which inputs are
// storable is decided here by a rule of its own: no NUL, and the text survives UTF-8 unchanged.

import { InvalidInputError } from '@agent-ledger/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppendEventInput, EventsLedger } from '../src/index.ts';
import { caught, collect, type Engine, openEngineEvents, postgresServer } from './helpers.ts';

const server = postgresServer();

/** Halves of surrogate pairs and NUL: what neither engine can store as sent. */
const UNSTORABLE_UNITS = ['\ud83d', '\ude00', '\ud800', '\udbff', '\udc00', '\udfff', '\u0000'];
/** Storable, but the kind of text that trips code that assumes one code unit is one character. */
const AWKWARD_UNITS = [
  '\u0301',
  'e\u0301',
  '\u00e9',
  '\u202e',
  '\u202c',
  '\u200f',
  '\u200e',
  '\u061c',
  '\u200b',
  '\ufeff',
  '\ufffd',
  '\ufffe',
  '\uffff',
  '\u{10ffff}',
  '\u{1f600}',
  '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}',
  '\u05e9\u05dc\u05d5\u05dd',
  '\u0645\u0631\u062d\u0628\u0627',
  '\u0007',
  '\n',
  '"',
  '\\',
  '\\u0000',
];

/** One unit of text: mostly any code point, sometimes an awkward one, rarely an unstorable half. */
const unit = fc.oneof(
  { weight: 20, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 10, arbitrary: fc.constantFrom(...AWKWARD_UNITS) },
  { weight: 1, arbitrary: fc.constantFrom(...UNSTORABLE_UNITS) },
);
const text = fc.string({ unit, maxLength: 8 });
const name = fc.string({ unit, minLength: 1, maxLength: 8 }).filter((value) => value.trim() !== '');
const payload = fc.oneof(
  text,
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 2 })), { maxKeys: 3 }),
  fc.record({ text, author: fc.option(text), nested: fc.dictionary(text, text, { maxKeys: 2 }) }),
);
const eventInput = fc.record({ channel: name, externalId: name, author: fc.option(name, { nil: undefined }), payload });

/** The test's own rule: a string is storable when it has no NUL and survives UTF-8 unchanged. */
function storable(value: string): boolean {
  return !value.includes('\0') && Buffer.from(value, 'utf8').toString('utf8') === value;
}

/** Every string of a JSON value, object keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)]);
  return [];
}

/** The field append must name, in the order it checks them, or null when the event is storable. */
function firstUnstorableField(input: AppendEventInput): string | null {
  const fields: Array<[string, unknown]> = [
    ['channel', input.channel],
    ['externalId', input.externalId],
    ['author', input.author],
    ['payload', input.payload],
  ];
  return fields.find(([, value]) => !strings(value).every(storable))?.[0] ?? null;
}

async function storedCount(events: EventsLedger): Promise<number> {
  const result = await events.verify();
  expect(result, 'every chain verifies').toMatchObject({ ok: true });
  return result.checked;
}

async function checkOne(events: EventsLedger, input: AppendEventInput): Promise<'stored' | 'refused'> {
  const before = await storedCount(events);
  const expectedField = firstUnstorableField(input);
  if (expectedField !== null) {
    // Refused whole, the same way each time: never written, never a storage error.
    for (const attempt of [1, 2]) {
      const error = await caught(events.append(input), `append #${attempt}`);
      expect(InvalidInputError.isInstance(error), String(error)).toBe(true);
      expect((error as InvalidInputError).field ?? '').toMatch(new RegExp(`^${expectedField}`));
      expect((error as Error).message).toMatch(/at index \d+/);
    }
    expect(await storedCount(events), 'events written by a refused append').toBe(before);
    return 'refused';
  }
  const appended = await events.append(input);
  expect(appended.duplicate).toBe(false);
  const stored = await events.get(appended.event.id);
  expect(stored).toMatchObject({ channel: input.channel, externalId: input.externalId, author: input.author ?? null });
  expect(stored.payload).toEqual(input.payload);
  // The same event again is a re-delivery of what is stored, not a conflict or a failure.
  const again = await events.append(input);
  expect(again).toMatchObject({ duplicate: true, conflict: null, event: { id: appended.event.id } });
  const channel = await collect(events.range({ channel: input.channel }));
  expect(channel.map((event) => event.id)).toContain(appended.event.id);
  expect(await events.verify({ channel: input.channel })).toMatchObject({ ok: true });
  expect(await storedCount(events)).toBe(before + 1);
  return 'stored';
}

for (const engine of ['sqlite', 'postgres'] as Engine[]) {
  describe.skipIf(engine === 'postgres' && !server)(`arbitrary unicode in events on ${engine}`, () => {
    let opened: Awaited<ReturnType<typeof openEngineEvents>>;
    beforeAll(async () => {
      opened = await openEngineEvents(engine, 'unicode');
    });
    afterAll(async () => opened?.cleanup());

    it('stores each event exactly as sent or refuses it with nothing written', async () => {
      const outcomes = { stored: 0, refused: 0 };
      let sent = 0;
      await fc.assert(
        fc.asyncProperty(eventInput, async (generated) => {
          // A fresh external id per event, so every storable one is new (the suffix keeps a trailing half lone).
          sent += 1;
          const input = { ...generated, externalId: `${generated.externalId}#${sent}` };
          outcomes[await checkOne(opened.ledger, input)] += 1;
        }),
        { numRuns: 150 },
      );
      // Both branches ran: the property saw storable and unstorable text.
      expect(outcomes.stored).toBeGreaterThan(10);
      expect(outcomes.refused).toBeGreaterThan(10);
      expect((await opened.ledger.verify()).checked).toBe(outcomes.stored);
    });

    it('refuses a batch holding one unstorable event and writes none of it', async () => {
      const before = (await opened.ledger.verify()).checked;
      const error = await caught(
        opened.ledger.appendBatch([
          { channel: 'batch', externalId: 'fine', payload: { text: 'caf\u00e9 \u{1f600}' } },
          { channel: 'batch', externalId: 'cut', author: 'ann\ud83d', payload: 1 },
        ]),
      );
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect((error as InvalidInputError).field).toBe('author');
      expect((error as Error).message).toContain('author holds a lone surrogate (U+D83D) at index 3');
      expect((await opened.ledger.verify()).checked).toBe(before);
    });

    it('names the path and index of a NUL or a half character inside a payload', async () => {
      const nul = await caught(opened.ledger.append({ channel: 'p', externalId: 'n', payload: { items: ['ok', 'a\u0000b'] } }));
      expect((nul as InvalidInputError).field).toBe('payload.items[1]');
      expect((nul as Error).message).toContain('payload.items[1] holds a NUL (U+0000) at index 1');
      const key = await caught(opened.ledger.append({ channel: 'p', externalId: 'k', payload: { 'x\udc00': 1 } }));
      expect((key as InvalidInputError).field).toBe('payload');
      expect((key as Error).message).toContain('the key "x\\udc00" of payload holds a lone surrogate (U+DC00) at index 1');
    });

    it('refuses to verify a channel no event can have, instead of answering "intact" for nothing', async () => {
      const error = await caught(opened.ledger.verify({ channel: 'c\ud800' }));
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect((error as InvalidInputError).field).toBe('channel');
    });
  });
}
