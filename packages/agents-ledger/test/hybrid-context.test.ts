import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { RETRIEVAL_HEADER } from '../src/index.ts';
import {
  assistantTurn,
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

  it('brings back a fact the summary lost, cited with its turn, time and role', async () => {
    const { ledger, head, fact } = await compactedConversation();
    const query = 'Which port does the staging database listen on?';
    const plain = await ledger.buildContext(head, { budgetTokens: 600, query });
    expect(plain.system).not.toContain('5432');
    const hybrid = await ledger.buildContext(head, { budgetTokens: 600, query, retrieval: true });
    expect(hybrid.retrievedTurnIds).toContain(fact);
    expect(hybrid.system).toContain(RETRIEVAL_HEADER);
    expect(hybrid.system).toMatch(
      new RegExp(`\\[${fact} · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · user\\] The staging database listens on port 5432\\.`),
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
    expect(RETRIEVAL_HEADER).toMatch(/later one is newer and holds/);
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
          const context = await ledger.buildContext(head, options);
          expect(context.tokens).toBeLessThanOrEqual(budget);
          expect(await ledger.buildContext(head, options)).toEqual(context);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses a share outside 0–1', async () => {
    const { ledger, head } = await compactedConversation();
    await expect(ledger.buildContext(head, { query: 'port', retrieval: { share: 2 } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});
