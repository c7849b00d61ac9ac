import { countContentTokens } from '@agent-ledger/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTINUATION_MARKER } from '../src/index.ts';
import { RECALL_HEADER } from '../src/retrieval/render-recalled.ts';
import {
  assistantTurn,
  contextOrNeeded,
  openTempLedger,
  prose,
  recomputeTokens,
  recordingSummarizer,
  type TempLedger,
  userTurn,
} from './builders.ts';

// A small window, so compaction runs; the summarizer keeps nothing of the turns it is given.
const SETTINGS = { contextWindow: 1200, reserveTokens: 200, keepRecentTokens: 200 };

describe('buildContext with retrieval (the hybrid context)', () => {
  let temp: TempLedger;
  afterEach(() => temp?.cleanup());

  /** An early fact, a later correction, then enough chatter to compact both out of the raw turns. */
  async function compactedConversation(strategy: 'flat' | 'union-find' = 'flat') {
    temp = openTempLedger({ summarizer: recordingSummarizer('Nothing in particular was decided.') });
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SETTINGS, strategy });
    const fact = await ledger.appendTurn(session.id, userTurn('The staging database listens on port 5432.'));
    await ledger.appendTurn(session.id, assistantTurn('Noted, staging on 5432.'));
    for (let index = 0; index < 6; index += 1) {
      await ledger.appendTurn(session.id, userTurn(prose(40, index + 1)));
      await ledger.appendTurn(session.id, assistantTurn(prose(40, index + 11)));
    }
    const correction = await ledger.appendTurn(session.id, userTurn('Correction: the staging database port is now 6543.'));
    for (let index = 0; index < 6; index += 1) {
      await ledger.appendTurn(session.id, userTurn(prose(40, index + 21)));
      await ledger.appendTurn(session.id, assistantTurn(prose(40, index + 31)));
      if (await ledger.shouldCompact(session.id)) await ledger.compact(session.id, { trigger: 'threshold' });
    }
    await ledger.compact(session.id, { trigger: 'manual' }).catch(() => undefined);
    const head = (await ledger.getSession(session.id)).headTurnId as string;
    return { ledger, session, head, fact: fact.id, correction: correction.id };
  }

  it('brings back a fact the summary lost, cited with its turn and speaker under its date', async () => {
    const { ledger, head, fact } = await compactedConversation();
    const query = 'Which port does the staging database listen on?';
    const plain = await ledger.buildContext(head, { budgetTokens: 600, query });
    expect(plain.system).not.toContain('5432');
    const hybrid = await ledger.buildContext(head, { budgetTokens: 600, query, retrieval: true });
    expect(hybrid.retrievedTurnIds).toContain(fact);
    expect(hybrid.system).toContain(RECALL_HEADER);
    expect(hybrid.system).toMatch(
      new RegExp(`\\(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\)\n\\[${fact} user\\] The staging database listens on port 5432\\.`),
    );
    expect(hybrid.tokens).toBeLessThanOrEqual(600);
    expect(hybrid.tokens).toBe(recomputeTokens(ledger, hybrid));
  });

  it('shows a corrected fact with both values, older first, and says the later one holds', async () => {
    const { ledger, head, fact, correction } = await compactedConversation();
    const hybrid = await ledger.buildContext(head, {
      budgetTokens: 800,
      query: 'staging database port',
      retrieval: true,
    });
    expect(hybrid.retrievedTurnIds).toEqual(expect.arrayContaining([fact, correction]));
    const system = hybrid.system;
    expect(system.indexOf('5432')).toBeGreaterThan(-1);
    expect(system.indexOf('5432')).toBeLessThan(system.indexOf('6543'));
    expect(RECALL_HEADER).toMatch(/later one is newer and holds/);
  });

  it('never repeats a turn already in the context, and changes nothing without a query', async () => {
    const { ledger, head } = await compactedConversation('union-find');
    const hybrid = await ledger.buildContext(head, { budgetTokens: 4000, query: 'staging port prose', retrieval: true });
    for (const id of hybrid.retrievedTurnIds) expect(hybrid.includedTurnIds).not.toContain(id);
    expect(await ledger.buildContext(head, { budgetTokens: 700, retrieval: true })).toEqual(
      await ledger.buildContext(head, { budgetTokens: 700 }),
    );
  });

  it('stays within any budget and gives the same context twice', async () => {
    const { ledger, head } = await compactedConversation('union-find');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom('staging port', 'Which port does the staging database use?', 'correction 6543', 'nothing matches zzz'),
        async (budget, share, query) => {
          const options = { budgetTokens: budget, query, retrieval: { share } };
          const context = await contextOrNeeded(ledger, head, options);
          // Too small for the newest user turn alone: refused with the budget that would do, never
          // a context with no message.
          if ('needs' in context) {
            expect(context.needs).toBeGreaterThan(budget);
            expect((await ledger.buildContext(head, { ...options, budgetTokens: context.needs })).messages[0]?.role).toBe('user');
            return;
          }
          expect(context.tokens).toBeLessThanOrEqual(budget);
          expect(context.messages[0]?.role).toBe('user');
          expect(await ledger.buildContext(head, options)).toEqual(context);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps the message being answered and its tool round, however many turns match the query', async () => {
    const { ledger, session } = await compactedConversation();
    // Every older turn shares the question's words a little: plain retrieval at share 1 would fill the budget.
    const question = await ledger.appendTurn(
      session.id,
      userTurn('Which port does the staging database use, and which prose words?'),
    );
    const call = await ledger.appendTurn(session.id, {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'search_history', input: { query: 'staging port' } }],
    });
    const result = await ledger.appendTurn(session.id, {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'staging port 6543' }],
    });
    for (const budget of [300, 450, 600, 1000]) {
      const context = await ledger.buildContext(result.id, {
        budgetTokens: budget,
        query: 'staging port prose words',
        retrieval: true,
      });
      expect(context.includedTurnIds.slice(-3)).toEqual([question.id, call.id, result.id]);
      expect(context.retrievedTurnIds).not.toContain(question.id);
      expect(context.tokens).toBeLessThanOrEqual(budget);
    }
  });

  it('reserves only the newest user turn after a completed answer, and that turn at any budget it fits in', async () => {
    const { ledger, session } = await compactedConversation();
    const question = await ledger.appendTurn(session.id, userTurn('Which port does the staging database use now?'));
    // Assembly counts the continuation marker before it knows whether it is needed.
    const markerTokens = countContentTokens(ledger.tokenCounter, [{ type: 'text', text: CONTINUATION_MARKER }]);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: question.tokenCount + markerTokens + 2, max: 2500 }), async (budget) => {
        const context = await ledger.buildContext(question.id, {
          budgetTokens: budget,
          query: 'staging database port',
          retrieval: true,
        });
        expect(context.includedTurnIds.at(-1)).toBe(question.id);
        expect(context.tokens).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 30 },
    );
    const answer = await ledger.appendTurn(session.id, assistantTurn('It is 6543 since the correction.'));
    const afterAnswer = await ledger.buildContext(answer.id, {
      budgetTokens: 200,
      query: 'staging database port',
      retrieval: true,
    });
    // A completed exchange claims only the room a request needs (a user message): at a small
    // budget retrieval takes the rest, and the question it answered is what the messages hold.
    expect(afterAnswer.retrievedTurnIds.length).toBeGreaterThan(0);
    expect(afterAnswer.includedTurnIds).toContain(question.id);
    expect(afterAnswer.messages[0]?.role).toBe('user');
    expect(afterAnswer.tokens).toBeLessThanOrEqual(200);
  });

  it('refuses a share outside 0–1', async () => {
    const { ledger, head } = await compactedConversation();
    await expect(ledger.buildContext(head, { query: 'port', retrieval: { share: 2 } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});
