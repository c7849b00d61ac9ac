import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETRIEVAL_HEADER } from '../src/index.ts';
import { assistantTurn, openTempLedger, type TempLedger, userTurn } from './builders.ts';

const FILLER = [
  'Morning, picking up the dashboard work again today.',
  'Sounds good, the panels render fine on my side.',
  'Let us look at the colour scheme of the charts later.',
  'Agreed, nothing urgent there.',
];

describe('retrieveTurns', () => {
  let temp: TempLedger;
  beforeEach(() => {
    temp = openTempLedger();
  });
  afterEach(() => temp.cleanup());

  async function conversation() {
    const { ledger } = temp;
    const session = await ledger.createSession();
    const ids: string[] = [];
    const say = async (turn: ReturnType<typeof userTurn>) => ids.push((await ledger.appendTurn(session.id, turn)).id);
    for (const text of FILLER)
      await say(text.startsWith('Sounds') || text.startsWith('Agreed') ? assistantTurn(text) : userTurn(text));
    await say(userTurn('Which PostgreSQL version do we run on the primary?'));
    await say(assistantTurn('Version 16.2, with pgbouncer in front.'));
    for (const text of FILLER)
      await say(text.startsWith('Sounds') || text.startsWith('Agreed') ? assistantTurn(text) : userTurn(text));
    return { ledger, session, ids, question: ids[4] as string, reply: ids[5] as string, head: ids.at(-1) as string };
  }

  it('finds the matching turns and brings a reply with the turn it answers, cited with id, time and role', async () => {
    const { ledger, head, question, reply } = await conversation();
    const retrieval = await ledger.retrieve(head, { query: 'pgbouncer version', budgetTokens: 500 });
    expect(retrieval.pieces[0]?.turnIds).toEqual([question, reply]);
    expect(retrieval.text.startsWith(RETRIEVAL_HEADER)).toBe(true);
    expect(retrieval.text).toMatch(new RegExp(`\\[${reply} · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · assistant\\] Version 16\\.2`));
    expect(retrieval.text).toContain(`[${question} · `);
  });

  it('never goes over the budget, and gives nothing when nothing fits or nothing matches', async () => {
    const { ledger, head } = await conversation();
    for (const budget of [0, 10, 40, 80, 200]) {
      const retrieval = await ledger.retrieve(head, { query: 'dashboard charts PostgreSQL', budgetTokens: budget });
      expect(retrieval.tokens).toBeLessThanOrEqual(budget);
      if (retrieval.text) expect(ledger.tokenCounter.countText(retrieval.text)).toBeLessThanOrEqual(budget);
    }
    expect((await ledger.retrieve(head, { query: 'kubernetes', budgetTokens: 500 })).pieces).toEqual([]);
    expect((await ledger.retrieve(head, { query: '   ', budgetTokens: 500 })).text).toBe('');
  });

  it('sees the line as of the turn asked at: nothing said later is retrieved', async () => {
    const { ledger, ids } = await conversation();
    const before = ids[3] as string;
    expect((await ledger.retrieve(before, { query: 'PostgreSQL pgbouncer', budgetTokens: 500 })).pieces).toEqual([]);
  });

  it('leaves out turns already in the context', async () => {
    const { ledger, head, question, reply } = await conversation();
    // No turn holds all three words, so any may match: both the question and its reply do.
    const retrieval = await ledger.retrieve(head, {
      query: 'PostgreSQL version pgbouncer',
      budgetTokens: 500,
      excludeTurnIds: new Set([reply]),
    });
    expect(retrieval.pieces.flatMap((piece) => piece.turnIds)).not.toContain(reply);
    expect(retrieval.pieces.flatMap((piece) => piece.turnIds)).toContain(question);
  });

  it('does not reach into a sibling fork', async () => {
    const { ledger, ids } = await conversation();
    const fork = await ledger.forkFrom(ids[3] as string);
    const forkTurn = await ledger.appendTurn(fork.session.id, userTurn('In this branch we pick MariaDB 11 instead.'));
    const mainHead = ids.at(-1) as string;
    expect((await ledger.retrieve(mainHead, { query: 'MariaDB', budgetTokens: 500 })).pieces).toEqual([]);
    const inFork = await ledger.retrieve(forkTurn.id, { query: 'MariaDB', budgetTokens: 500 });
    expect(inFork.pieces[0]?.turnIds).toEqual([forkTurn.id]);
    // The fork inherits the turns before its fork point, not the source's later ones.
    expect((await ledger.retrieve(forkTurn.id, { query: 'pgbouncer', budgetTokens: 500 })).pieces).toEqual([]);
  });

  it('refuses a budget that is not a number of tokens, and an unknown turn', async () => {
    const { ledger, head } = await conversation();
    await expect(ledger.retrieve(head, { query: 'x', budgetTokens: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(ledger.retrieve('t_missing', { query: 'x', budgetTokens: 10 })).rejects.toMatchObject({
      code: 'TURN_NOT_FOUND',
    });
  });

  it('leaves out matches far weaker than the best one with minRelevance', async () => {
    const { ledger, head, question } = await conversation();
    // "PostgreSQL version primary" matches the question strongly; "charts" and "colour" one filler turn each.
    const query = 'PostgreSQL version primary charts';
    const every = await ledger.retrieve(head, { query, budgetTokens: 2000 });
    const strong = await ledger.retrieve(head, { query, budgetTokens: 2000, minRelevance: 0.6 });
    expect(every.pieces.length).toBeGreaterThan(strong.pieces.length);
    expect(strong.pieces.flatMap((piece) => piece.turnIds)).toContain(question);
    expect(strong.text).not.toContain('colour scheme');
    expect(every.text).toContain('colour scheme');
  });

  it('falls back to any word when only excluded turns hold every word of the query', async () => {
    const { ledger, head, question } = await conversation();
    const query = 'Which PostgreSQL version do we run on the primary?';
    const retrieval = await ledger.retrieve(head, { query, budgetTokens: 500, excludeTurnIds: new Set([question]) });
    expect(retrieval.pieces.flatMap((piece) => piece.turnIds)).not.toContain(question);
    expect(retrieval.pieces.length).toBeGreaterThan(0);
  });
});
