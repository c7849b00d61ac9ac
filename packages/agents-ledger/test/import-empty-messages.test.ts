import { contentText } from '@agent-ledger/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { importConversation, validateConversation } from '../src/index.ts';
import { openTempLedger, type TempLedger } from './builders.ts';

function conversation(messages: unknown[]) {
  return { format: 'nexus-eval/v1', id: 'c', messages, questions: [] };
}

const at = (minute: number) => `2026-02-02T09:${String(minute).padStart(2, '0')}:00Z`;

describe('importing a conversation with empty messages', () => {
  let temp: TempLedger;
  afterEach(() => temp?.cleanup());

  it('skips empty messages, lists them, and keeps every other message with its id', async () => {
    temp = openTempLedger();
    const file = validateConversation(
      conversation([
        { id: 'm1', role: 'user', content: 'Which port does staging use?', timestamp: at(0) },
        { id: 'm2', role: 'assistant', content: '', timestamp: at(1) },
        { id: 'm3', role: 'assistant', content: '  \n ', timestamp: at(2) },
        { id: 'm4', role: 'assistant', content: [{ type: 'text', text: ' ' }], timestamp: at(3) },
        { id: 'm5', role: 'assistant', content: [], timestamp: at(4) },
        { id: 'm6', role: 'assistant', content: 'Port 6543.', timestamp: at(5) },
      ]),
    );
    const result = await importConversation(temp.ledger, file);
    expect(result.skippedMessageIds).toEqual(['m2', 'm3', 'm4', 'm5']);
    expect(result.turns).toBe(2);
    expect(Object.keys(result.turnIds)).toEqual(['m1', 'm6']);
    const history = [];
    for await (const turn of temp.ledger.getFullHistory(result.headTurnId as string)) history.push(turn);
    expect(history.map((turn) => (turn.turnType === 'normal' ? contentText(turn.content) : ''))).toEqual([
      'Which port does staging use?',
      'Port 6543.',
    ]);
  });

  it('drops blank text blocks beside a tool call, and keeps the call', async () => {
    temp = openTempLedger();
    const file = validateConversation(
      conversation([
        { id: 'm1', role: 'user', content: 'Look it up.', timestamp: at(0) },
        {
          id: 'm2',
          role: 'assistant',
          content: [
            { type: 'text', text: '' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
          ],
          timestamp: at(1),
        },
        { id: 'm3', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '6543' }], timestamp: at(2) },
      ]),
    );
    const result = await importConversation(temp.ledger, file);
    expect(result.skippedMessageIds).toEqual([]);
    const call = await temp.ledger.getTurn(result.turnIds.m2 as string);
    expect(call.turnType === 'normal' && call.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }]);
  });

  it('refuses up front, naming the message and block, what the ledger would refuse on import', () => {
    const bad = (content: unknown) => () =>
      validateConversation(conversation([{ id: 'm1', role: 'user', content, timestamp: null }]), 'file.json');
    expect(bad([{ type: 'tool_use', id: 'toolu_1' }])).toThrow(/file\.json: messages\[0\]\.content\[0\] is a tool_use/);
    expect(bad([{ type: 'image' }])).toThrow(/messages\[0\]\.content\[0\]\.type must be/);
    expect(() =>
      validateConversation(conversation([{ id: 'm1', role: 'user', content: 'hi', timestamp: '1969-12-31T23:00:00Z' }])),
    ).toThrow(/timestamp must be an ISO 8601 time from 1970 on/);
  });

  it('refuses up front a second result to one tool call, as append would, and imports one result', async () => {
    const call = {
      id: 'm1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }],
      timestamp: null,
    };
    const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' };
    // In one message (the property test's counterexample), and in a later message after an empty one.
    expect(() =>
      validateConversation(conversation([call, { id: 'm2', role: 'user', content: [result, result], timestamp: null }])),
    ).toThrow('messages[1] answers tool call toolu_1 again (the same message already did)');
    expect(() =>
      validateConversation(
        conversation([
          call,
          { id: 'm2', role: 'user', content: [result], timestamp: null },
          { id: 'm3', role: 'assistant', content: '', timestamp: null },
          { id: 'm4', role: 'user', content: [result], timestamp: null },
        ]),
      ),
    ).toThrow('messages[3] answers tool call toolu_1 again (messages[1] already did)');
    // A new call with the same id may be answered again: the look-back stops at the call.
    temp = openTempLedger();
    const again = validateConversation(
      conversation([
        call,
        { id: 'm2', role: 'user', content: [result], timestamp: null },
        { ...call, id: 'm3' },
        { id: 'm4', role: 'user', content: [result], timestamp: null },
      ]),
    );
    expect((await importConversation(temp.ledger, again)).turns).toBe(4);
  });

  it('imports every conversation its check accepts (property)', async () => {
    const text = fc.constantFrom('', ' ', '\n', 'hello', 'port 6543', '  spaced  ');
    const block = fc.oneof(
      text.map((value) => ({ type: 'text', text: value })),
      fc.constant({ type: 'text' }),
      fc.constant({ type: 'tool_use', id: 'toolu_x', name: 'lookup', input: {} }),
      fc.constant({ type: 'tool_use', id: '', name: 'lookup', input: {} }),
      fc.constant({ type: 'tool_result', tool_use_id: 'toolu_x', content: 'ok' }),
      fc.constant({ type: 'video' }),
    );
    const message = fc.record({
      role: fc.constantFrom('user', 'assistant'),
      content: fc.oneof(text, fc.array(block, { maxLength: 3 })),
      timestamp: fc.constantFrom(null, at(1), '1960-01-01T00:00:00Z', 'not a time'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 5 }), async (messages) => {
        const value = conversation(messages.map((item, index) => ({ id: `m${index}`, ...item })));
        let checked: ReturnType<typeof validateConversation>;
        try {
          checked = validateConversation(value);
        } catch {
          return; // refused up front: nothing to import
        }
        const run = openTempLedger();
        try {
          const result = await importConversation(run.ledger, checked);
          expect(result.turns + result.skippedMessageIds.length).toBe(messages.length);
        } finally {
          run.cleanup();
        }
      }),
      { numRuns: 60 },
    );
  });
});
