// Whatever was stored — a crash between a tool call and its result, a user who wrote on after an
// unanswered call, a result with no call, results after other text — every context buildContext
// returns passes the Messages API's own shape rules (checked by the loopback server's strict
// validator), a second result for one call is refused at append, and doctor names dangling calls.

import type { ContentBlock, Message } from '@agent-ledger/core';
import { messagesProblems } from '@agent-ledger/loopback-api';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { INTERRUPTED_TOOL_RESULT, pairToolCalls } from '../src/index.ts';
import {
  assistantTurn,
  contextOrNeeded,
  multiToolUseTurn,
  newSession,
  openTempLedger,
  type TempLedger,
  toolResultTurn,
  toolUseTurn,
  userTurn,
} from './builders.ts';

let temp: TempLedger | null = null;
afterEach(() => {
  temp?.cleanup();
  temp = null;
});

function ledger() {
  temp = openTempLedger();
  return temp.ledger;
}

const interrupted = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: INTERRUPTED_TOOL_RESULT, is_error: true });

describe('buildContext pairs every tool call with its result', () => {
  it('answers a call left at the head by a crash with an interrupted is_error result', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    await l.appendTurn(session.id, userTurn('Read the config please.'));
    const call = await l.appendTurn(session.id, toolUseTurn('toolu_1', 'read_file', { path: 'a.yaml' }));
    const context = await l.buildContext(call.id);
    expect(messagesProblems(context.messages)).toEqual([]);
    expect(context.messages.at(-1)).toEqual({ role: 'user', content: [interrupted('toolu_1')] });
  });

  it('puts the interrupted result before a user message written after the unanswered call', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    const turns = await l.appendTurns(session.id, [
      userTurn('Check both hosts.'),
      multiToolUseTurn([
        { id: 'toolu_a', name: 'ping', input: { host: 'db-1' } },
        { id: 'toolu_b', name: 'ping', input: { host: 'db-2' } },
      ]),
      userTurn('never mind'),
    ]);
    const context = await l.buildContext((turns.at(-1) as { id: string }).id);
    expect(messagesProblems(context.messages)).toEqual([]);
    expect(context.messages.at(-1)?.content).toEqual([
      interrupted('toolu_a'),
      interrupted('toolu_b'),
      { type: 'text', text: 'never mind' },
    ]);
  });

  it('keeps a stored result and invents only the missing one', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    const turns = await l.appendTurns(session.id, [
      userTurn('Check both hosts.'),
      multiToolUseTurn([
        { id: 'toolu_a', name: 'ping', input: {} },
        { id: 'toolu_b', name: 'ping', input: {} },
      ]),
      toolResultTurn('toolu_b', 'db-2 is up'),
    ]);
    const context = await l.buildContext((turns.at(-1) as { id: string }).id);
    expect(messagesProblems(context.messages)).toEqual([]);
    expect(context.messages.at(-1)?.content).toEqual([
      interrupted('toolu_a'),
      { type: 'tool_result', tool_use_id: 'toolu_b', content: 'db-2 is up' },
    ]);
  });

  it('turns a result that answers no call right before it into text, keeping what it says', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    const turns = await l.appendTurns(session.id, [
      userTurn('Hello.'),
      assistantTurn('Hi.'),
      toolResultTurn('toolu_ghost', 'late output'),
    ]);
    const context = await l.buildContext((turns.at(-1) as { id: string }).id);
    expect(messagesProblems(context.messages)).toEqual([]);
    expect(context.messages.at(-1)?.content).toEqual([{ type: 'text', text: '[result of tool call toolu_ghost] late output' }]);
  });

  it('refuses a second result for one call at append, writing nothing', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    await l.appendTurns(session.id, [userTurn('Go.'), toolUseTurn('toolu_1', 'run', {}), toolResultTurn('toolu_1', 'done')]);
    const before = (await l.getSession(session.id)).headTurnId;
    await expect(l.appendTurn(session.id, toolResultTurn('toolu_1', 'done again'))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('A second tool_result for tool call toolu_1'),
    });
    // Two results for one call inside one turn, and inside one batch, are refused as well.
    await expect(
      l.appendTurns(session.id, [
        toolUseTurn('toolu_2', 'run', {}),
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'x' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'y' },
          ],
        },
      ]),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      l.appendTurns(session.id, [
        toolUseTurn('toolu_3', 'run', {}),
        toolResultTurn('toolu_3', 'x'),
        toolResultTurn('toolu_3', 'y'),
      ]),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await l.getSession(session.id)).headTurnId).toBe(before);
  });

  it('accepts a result for a call made long ago once (the look-back stops at the call)', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    await l.appendTurns(session.id, [userTurn('Go.'), toolUseTurn('toolu_1', 'run', {})]);
    const answer = await l.appendTurn(session.id, toolResultTurn('toolu_1', 'done'));
    expect(answer.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
  });

  it('says an unknown expected head is no turn, not that another writer appended first', async () => {
    const l = ledger();
    const session = await newSession(l);
    await l.appendTurn(session.id, userTurn('Hello.'));
    await expect(l.appendTurn(session.id, { ...userTurn('Again.'), expectedHeadTurnId: 't_nope' })).rejects.toMatchObject({
      code: 'TURN_NOT_FOUND',
    });
  });
});

describe('doctor', () => {
  it('warns about each call never answered, on its line and on a fork made at it', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    const [, answered, , dangling, , atHead] = await l.appendTurns(session.id, [
      userTurn('One.'),
      toolUseTurn('toolu_ok', 'run', {}),
      toolResultTurn('toolu_ok', 'fine'),
      toolUseTurn('toolu_lost', 'run', {}),
      userTurn('never mind'),
      toolUseTurn('toolu_head', 'run', {}),
    ]);
    const fork = await l.forkFrom((answered as { id: string }).id);
    await l.appendTurn(fork.session.id, userTurn('on the fork, the call is left unanswered'));
    const warnings = (await l.doctor()).filter((problem) => problem.code === 'DANGLING_TOOL_CALL');
    expect(warnings.every((warning) => warning.severity === 'warning')).toBe(true);
    expect(warnings.map((warning) => warning.ids).sort()).toEqual(
      [
        [(answered as { id: string }).id, 'toolu_ok'],
        [(dangling as { id: string }).id, 'toolu_lost'],
        [(atHead as { id: string }).id, 'toolu_head'],
      ].sort(),
    );
  });
});

describe('doctor over many tool rounds', () => {
  it('reads every calling turn, page after page: a call left open after hundreds of answered ones is found', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    // More answered rounds than the scan reads at once, then one call never answered.
    const rounds = [userTurn('Start.')];
    for (let index = 0; index < 450; index += 1)
      rounds.push(toolUseTurn(`toolu_${index}`, 'run', {}), toolResultTurn(`toolu_${index}`, `result ${index}`));
    rounds.push(toolUseTurn('toolu_open', 'run', {}), userTurn('moving on'));
    const turns = await l.appendTurns(session.id, rounds);
    const warnings = (await l.doctor()).filter((problem) => problem.code === 'DANGLING_TOOL_CALL');
    expect(warnings.map((warning) => warning.ids)).toEqual([[(turns.at(-2) as { id: string }).id, 'toolu_open']]);
  });
});

// ---------------------------------------------------------------------------------------------
// The property: random append sequences with tool calls, every context valid for the strict API.

type Step =
  | { kind: 'user'; words: number }
  | { kind: 'assistant'; words: number }
  | { kind: 'call'; calls: number; withText: boolean }
  | { kind: 'answer'; which: 'open' | 'some' | 'stale' | 'unknown'; withText: boolean }
  | { kind: 'misplaced'; role: 'user' | 'assistant' }
  | { kind: 'compact' };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), words: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('assistant' as const), words: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('call' as const), calls: fc.integer({ min: 1, max: 3 }), withText: fc.boolean() }),
  fc.record({
    kind: fc.constant('answer' as const),
    which: fc.constantFrom('open' as const, 'some' as const, 'stale' as const, 'unknown' as const),
    withText: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('misplaced' as const), role: fc.constantFrom('user' as const, 'assistant' as const) }),
  fc.record({ kind: fc.constant('compact' as const) }),
);

describe('property: every context is valid for the Messages API', () => {
  it('holds for random appends, crashes mid-round, stray results and compactions, at any budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArbitrary, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 40, max: 2000 }),
        async (steps, budget) => {
          const opened = openTempLedger();
          try {
            const l = opened.ledger;
            const session = await newSession(l, { contextWindow: 4000, reserveTokens: 200, keepRecentTokens: 300 });
            let callCounter = 0;
            let open: string[] = [];
            const made: string[] = [];
            for (const step of steps) {
              const content = contentFor(step);
              if (content === 'compact') {
                await l.compact(session.id, { trigger: 'manual' }).catch((error) => {
                  if (!['NOTHING_TO_COMPACT', 'COMPACTION_WOULD_NOT_SHRINK', 'EMPTY_SESSION'].includes(error.code)) throw error;
                });
              } else {
                const role =
                  step.kind === 'misplaced' ? step.role : step.kind === 'user' || step.kind === 'answer' ? 'user' : 'assistant';
                try {
                  await l.appendTurn(session.id, { role, content });
                } catch (error) {
                  // The one refusal the sequence can provoke: a second result for one call.
                  expect((error as { code?: string }).code).toBe('INVALID_INPUT');
                  continue;
                }
                if (step.kind === 'call') open = content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
                else if (step.kind === 'answer') open = [];
              }
              const head = (await l.getSession(session.id)).headTurnId;
              if (!head) continue;
              for (const options of [{}, { budgetTokens: budget }, { full: true, budgetTokens: budget }]) {
                const context = await contextOrNeeded(l, head, options);
                // A budget below the newest user turn is refused; any context sent has a message.
                if ('needs' in context) {
                  expect(context.needs).toBeGreaterThan(budget);
                  continue;
                }
                expect(messagesProblems(context.messages), JSON.stringify(context.messages)).toEqual([]);
              }
            }

            function contentFor(step: Step): ContentBlock[] | 'compact' {
              switch (step.kind) {
                case 'compact':
                  return 'compact';
                case 'misplaced':
                  return step.role === 'user'
                    ? [{ type: 'tool_use', id: `toolu_${++callCounter}`, name: 'run', input: {} }]
                    : [{ type: 'tool_result', tool_use_id: made[0] ?? 'toolu_none', content: 'misplaced' }];
                case 'user':
                case 'assistant':
                  return [{ type: 'text', text: `words ${'x '.repeat(step.words)}`.trim() }];
                case 'call': {
                  const ids = Array.from({ length: step.calls }, () => `toolu_${++callCounter}`);
                  made.push(...ids);
                  const calls: ContentBlock[] = ids.map((id) => ({ type: 'tool_use', id, name: 'run', input: { id } }));
                  return step.withText ? [{ type: 'text', text: 'Let me check.' }, ...calls] : calls;
                }
                case 'answer': {
                  const ids =
                    step.which === 'open'
                      ? open
                      : step.which === 'some'
                        ? open.slice(0, 1)
                        : step.which === 'stale'
                          ? made.slice(0, 1)
                          : ['toolu_unknown'];
                  const results: ContentBlock[] = ids.map((id) => ({
                    type: 'tool_result',
                    tool_use_id: id,
                    content: `result of ${id}`,
                  }));
                  const text: ContentBlock[] =
                    step.withText || results.length === 0 ? [{ type: 'text', text: 'and a note' }] : [];
                  // Text first on purpose: the API wants results first, so the context has to reorder.
                  return [...text, ...results];
                }
              }
            }
          } finally {
            opened.cleanup();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('pairToolCalls (pure)', () => {
  it('leaves a valid exchange exactly as it was', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'run', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ];
    expect(pairToolCalls(messages)).toEqual(messages);
  });
});

describe('blocks on the wrong side', () => {
  it('refuses a tool_use in a user turn, a tool_result in an assistant turn, and one call id twice, writing nothing', async () => {
    const l = ledger();
    const session = await newSession(l, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 2000 });
    await l.appendTurn(session.id, userTurn('Hello.'));
    const before = (await l.getSession(session.id)).headTurnId;
    await expect(
      l.appendTurn(session.id, { role: 'user', content: [{ type: 'tool_use', id: 'u1', name: 'x', input: {} }] }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('tool_use block in a user turn') });
    await expect(
      l.appendTurn(session.id, { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'u1', content: 'x' }] }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('tool_result block in an assistant turn'),
    });
    await expect(
      l.appendTurn(
        session.id,
        multiToolUseTurn([
          { id: 'd1', name: 'x', input: {} },
          { id: 'd1', name: 'x', input: {} },
        ]),
      ),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('calls tool d1 twice') });
    expect((await l.getSession(session.id)).headTurnId).toBe(before);
  });

  it('a call stored in a user message before append refused them is sent as text', () => {
    const messages = pairToolCalls([{ role: 'user', content: [{ type: 'tool_use', id: 'u1', name: 'x', input: { a: 1 } }] }]);
    expect(messages).toEqual([{ role: 'user', content: [{ type: 'text', text: '[tool call x u1] {"a":1}' }] }]);
    expect(messagesProblems(messages)).toEqual([]);
  });
});
