// A context is never an empty list of messages, which the Messages API refuses: for any session
// (text turns, tool rounds, a call left open, flat and union-find compactions, one that kept no
// turn) and any budget of 1 token or more, buildContext returns at least one message, a user's
// first, within the budget; or it refuses the budget with an InvalidInputError naming the tokens
// the smallest valid context needs, and that budget then works. Plain, `full`, with a system
// prompt, and the hybrid context (retrieval with a query) alike.

import { InvalidInputError } from '@agent-ledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentsLedger, BuildContextOptions } from '../src/index.ts';
import { apiShapeProblems, contextOrNeeded, newSession, openTempLedger, prose, recomputeTokens } from './builders.ts';

type Step =
  | { kind: 'say'; role: 'user' | 'assistant'; words: number; seed: number }
  | { kind: 'tools'; calls: number; words: number }
  | { kind: 'call' }
  | { kind: 'record'; cut: number }
  | { kind: 'compact' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('say' as const),
      role: fc.constantFrom('user' as const, 'assistant' as const),
      words: fc.integer({ min: 1, max: 120 }),
      seed: fc.nat({ max: 50 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      calls: fc.integer({ min: 1, max: 3 }),
      words: fc.integer({ min: 1, max: 80 }),
    }),
  },
  // A call whose result never comes (a crash mid-round): pairing answers it in the context.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('call' as const) }) },
  // A recorded compaction through any turn since the last one: through the head, it keeps none.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('record' as const), cut: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('compact' as const) }) },
);

const checkArb = fc.record({
  /** A turn of the line; the head when absent. */
  at: fc.option(fc.nat(), { nil: undefined }),
  budget: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 81, max: 1500 })),
  systemPrompt: fc.boolean(),
  full: fc.boolean(),
  query: fc.option(fc.constantFrom('schema migration', 'deploy budget', 'tool result file'), { nil: undefined }),
});

const scenarioArb = fc.record({
  strategy: fc.constantFrom('flat' as const, 'union-find' as const),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 30 }),
  checks: fc.array(checkArb, { minLength: 1, maxLength: 6 }),
});

/** Plays the steps; returns every turn id of the line, compactions included. */
async function play(ledger: AgentsLedger, sessionId: string, steps: readonly Step[]): Promise<string[]> {
  const line: string[] = [];
  let window: string[] = [];
  let open: string[] = [];
  let counter = 0;
  const append = async (input: Parameters<AgentsLedger['appendTurn']>[1]) => {
    const turn = await ledger.appendTurn(sessionId, input);
    line.push(turn.id);
    window.push(turn.id);
    return turn;
  };
  for (const step of steps) {
    counter += 1;
    if (step.kind === 'say') {
      await append({ role: step.role, content: prose(step.words, step.seed) });
      open = [];
    } else if (step.kind === 'tools' || step.kind === 'call') {
      const ids = Array.from({ length: step.kind === 'tools' ? step.calls : 1 }, (_, index) => `toolu_${counter}_${index}`);
      await append({ role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'read_file', input: { id } })) });
      open = ids;
      if (step.kind === 'tools') {
        await append({
          role: 'user',
          content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: prose(step.words, counter) })),
        });
        open = [];
      }
    } else if (open.length === 0 && window.length > 0) {
      // A cut between a call and its result is refused; one after a round is not.
      const compaction =
        step.kind === 'record'
          ? await ledger
              .recordCompaction(sessionId, {
                summary: prose(60, counter),
                summarizedThroughTurnId: window[step.cut % window.length],
              })
              .catch(() => null)
          : await ledger.compact(sessionId, { trigger: 'manual' }).catch(() => null);
      if (compaction) {
        line.push(compaction.id);
        window = compaction.firstKeptTurnId ? window.slice(window.indexOf(compaction.firstKeptTurnId)) : [];
      }
    }
  }
  return line;
}

describe('property: a context always has a user message, or names the budget it needs', () => {
  it('holds for any session and any budget of at least 1 token', async () => {
    let refused = 0;
    let smallest = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ strategy, steps, checks }) => {
        const temp = openTempLedger();
        try {
          const { ledger } = temp;
          const settings = { contextWindow: 2000, reserveTokens: 200, keepRecentTokens: 150 };
          const session = await ledger.createSession({ settings, strategy });
          const line = await play(ledger, session.id, steps);
          if (line.length === 0) return;
          for (const check of checks) {
            const turnId = line[check.at === undefined ? line.length - 1 : check.at % line.length] as string;
            const options: BuildContextOptions = {
              budgetTokens: check.budget,
              full: check.full,
              ...(check.systemPrompt ? { systemPrompt: 'You are a careful coding agent.' } : {}),
              ...(check.query ? { query: check.query, retrieval: true } : {}),
            };
            const context = await contextOrNeeded(ledger, turnId, options);
            if ('needs' in context) {
              // The error names a budget above this one, and that budget holds a valid context.
              refused += 1;
              expect(context.needs).toBeGreaterThan(check.budget);
              const enough = await ledger.buildContext(turnId, { ...options, budgetTokens: context.needs });
              expect(enough.messages[0]?.role).toBe('user');
              expect(enough.tokens).toBeLessThanOrEqual(context.needs);
              continue;
            }
            expect(context.messages.length).toBeGreaterThan(0);
            expect(context.messages[0]?.role).toBe('user');
            expect(context.tokens).toBeLessThanOrEqual(check.budget);
            expect(context.tokens).toBe(recomputeTokens(ledger, context));
            expect(apiShapeProblems(context.messages)).toEqual([]);
            if (context.includedTurnIds.length <= 2 && context.droppedTurnIds.length > 0) smallest += 1;
          }
        } finally {
          temp.cleanup();
        }
      }),
      { numRuns: 60 },
    );
    // The generator reaches both sides of the line.
    expect(refused).toBeGreaterThan(0);
    expect(smallest).toBeGreaterThan(0);
  });

  it('refuses a budget too small even for the continuation message when no raw turn is left', async () => {
    const temp = openTempLedger();
    try {
      const { ledger } = temp;
      const session = await newSession(ledger);
      await ledger.appendTurn(session.id, { role: 'user', content: 'Deploy the schema migration.' });
      const answer = await ledger.appendTurn(session.id, { role: 'assistant', content: 'Deployed.' });
      const compaction = await ledger.recordCompaction(session.id, {
        summary: 'A migration was deployed.',
        summarizedThroughTurnId: answer.id,
      });
      const error = await ledger.buildContext(compaction.id, { budgetTokens: 1 }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(
        /^budgetTokens 1 is too small for any valid context: the smallest one, a user message saying the conversation continues \(no user turn is among the raw turns\), needs \d+ tokens/,
      );
    } finally {
      temp.cleanup();
    }
  });
});
