// Arbitrary unicode through turns on both engines: a tool exchange (a user's words, an assistant's
// tool call, the call's result) whose text, tool input, ids and metadata keys and values are built
// from any code point plus lone surrogates, NUL, combining and bidi marks. Each batch is either
// refused with InvalidInputError naming content or metadata, with nothing written, or stored so
// that every turn reads back exactly as sent and doctor finds nothing. Which batches are storable
// is decided here by a rule of its own: no NUL, and every string survives UTF-8 unchanged.

import { type ContentBlock, InvalidInputError } from '@agent-ledger/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentsLedger, AppendTurnInput } from '../src/index.ts';
import { type EngineLedger, engines, openEngineLedger, sessionHistory } from './builders.ts';

const UNSTORABLE_UNITS = ['\ud83d', '\ude00', '\ud800', '\udbff', '\udc00', '\udfff', '\u0000'];
const AWKWARD_UNITS = [
  '\u0301',
  'e\u0301',
  '\u00e9',
  '\u202e',
  '\u200f',
  '\u200e',
  '\u061c',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\u{10ffff}',
  '\u{1f600}',
  '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}',
  '\u05e9\u05dc\u05d5\u05dd',
  '\u0007',
  '\\u0000',
];

const unit = fc.oneof(
  { weight: 40, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 15, arbitrary: fc.constantFrom(...AWKWARD_UNITS) },
  { weight: 1, arbitrary: fc.constantFrom(...UNSTORABLE_UNITS) },
);
const text = fc.string({ unit, maxLength: 8 });
const nonEmpty = fc.string({ unit, minLength: 1, maxLength: 8 });
const metadata = fc.option(
  fc.dictionary(text, fc.oneof(text, fc.integer(), fc.dictionary(text, text, { maxKeys: 2 })), { maxKeys: 3 }),
  {
    nil: undefined,
  },
);
const exchange = fc.record({
  words: fc.oneof(nonEmpty, fc.array(nonEmpty, { minLength: 1, maxLength: 3 })),
  callId: nonEmpty,
  toolName: nonEmpty,
  toolInput: fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 2 })), { maxKeys: 3 }),
  result: text,
  metadata: fc.tuple(metadata, metadata, metadata),
});
type Exchange = typeof exchange extends fc.Arbitrary<infer T> ? T : never;

/** The test's own rule: a string is storable when it has no NUL and survives UTF-8 unchanged. */
function storable(value: string): boolean {
  return !value.includes('\0') && Buffer.from(value, 'utf8').toString('utf8') === value;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)]);
  return [];
}

function turnsOf(generated: Exchange, serial: number): AppendTurnInput[] {
  const callId = `call_${serial}_${generated.callId}`;
  const [userMetadata, callMetadata, resultMetadata] = generated.metadata;
  const words: string | ContentBlock[] =
    typeof generated.words === 'string' ? generated.words : generated.words.map((item) => ({ type: 'text', text: item }));
  return [
    { role: 'user', content: words, metadata: userMetadata },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: callId, name: generated.toolName, input: generated.toolInput }],
      metadata: callMetadata,
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: callId, content: generated.result }],
      metadata: resultMetadata,
    },
  ];
}

/** The field append must name, in the order it checks each turn, or null when the batch is storable. */
function firstUnstorableField(turns: readonly AppendTurnInput[]): string | null {
  for (const turn of turns) {
    if (!strings(turn.content).every(storable)) return 'content';
    if (!strings(turn.metadata).every(storable)) return 'metadata';
  }
  return null;
}

async function checkBatch(ledger: AgentsLedger, sessionId: string, turns: AppendTurnInput[]): Promise<'stored' | 'refused'> {
  const before = await sessionHistory(ledger, sessionId);
  const expectedField = firstUnstorableField(turns);
  if (expectedField !== null) {
    const error = await ledger.appendTurns(sessionId, turns).then(
      () => new Error('expected appendTurns to reject'),
      (rejection: unknown) => rejection,
    );
    expect(InvalidInputError.isInstance(error), String(error)).toBe(true);
    expect((error as InvalidInputError).field ?? '').toMatch(new RegExp(`^${expectedField}`));
    expect((error as Error).message).toMatch(/at index \d+/);
    expect((await sessionHistory(ledger, sessionId)).length, 'turns written by a refused batch').toBe(before.length);
    return 'refused';
  }
  const written = await ledger.appendTurns(sessionId, turns);
  for (const [index, turn] of written.entries()) {
    const sent = turns[index] as AppendTurnInput;
    const stored = await ledger.getTurn(turn.id);
    const blocks = typeof sent.content === 'string' ? [{ type: 'text', text: sent.content }] : sent.content;
    expect(stored).toMatchObject({ turnType: 'normal', content: blocks });
    expect((stored as { metadata?: unknown }).metadata ?? undefined).toEqual(sent.metadata);
  }
  expect((await sessionHistory(ledger, sessionId)).length).toBe(before.length + 3);
  return 'stored';
}

for (const { engine, title, skip } of engines()) {
  describe.skipIf(skip)(`arbitrary unicode in turns ${title}`, () => {
    let opened: EngineLedger;
    beforeAll(async () => {
      opened = await openEngineLedger(engine, {}, 'unicode');
    });
    afterAll(async () => opened?.cleanup());

    it('stores each turn exactly as sent or refuses the batch with nothing written', async () => {
      const { ledger } = opened;
      const session = await ledger.createSession();
      const outcomes = { stored: 0, refused: 0 };
      let serial = 0;
      await fc.assert(
        fc.asyncProperty(exchange, async (generated) => {
          serial += 1;
          outcomes[await checkBatch(ledger, session.id, turnsOf(generated, serial))] += 1;
        }),
        { numRuns: 120 },
      );
      expect(outcomes.stored).toBeGreaterThan(10);
      expect(outcomes.refused).toBeGreaterThan(10);
      // The search index agrees with what was stored, and every other invariant holds.
      expect(await ledger.doctor()).toEqual([]);
    });

    it('names the place of a lone surrogate or a NUL in content and metadata', async () => {
      const { ledger } = opened;
      const session = await ledger.createSession();
      const cut = await ledger.appendTurn(session.id, { role: 'user', content: 'hi \ud83d' }).catch((error: unknown) => error);
      expect((cut as InvalidInputError).field).toBe('content');
      expect((cut as Error).message).toContain('content holds a lone surrogate (U+D83D) at index 3');
      const nul = await ledger
        .appendTurn(session.id, {
          role: 'user',
          content: [
            { type: 'text', text: 'fine' },
            { type: 'text', text: 'a\u0000' },
          ],
        })
        .catch((error: unknown) => error);
      expect((nul as InvalidInputError).field).toBe('content[1].text');
      const key = await ledger
        .appendTurn(session.id, { role: 'user', content: 'fine', metadata: { source: { 'k\udc00': 1 } } })
        .catch((error: unknown) => error);
      expect((key as InvalidInputError).field).toBe('metadata.source');
      expect((key as Error).message).toContain(
        'the key "k\\udc00" of metadata.source holds a lone surrogate (U+DC00) at index 1',
      );
      expect(await sessionHistory(ledger, session.id)).toEqual([]);
    });
  });
}
