// Recall (retrieval/recall-turns.ts): what the hybrid context retrieves with the question known.
import { contentText } from '@agent-ledger/core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerContext } from '../src/ledger-context.ts';
import { type RecallOptions, recallTurns } from '../src/retrieval/recall-turns.ts';
import { RECALL_HEADER } from '../src/retrieval/render-recalled.ts';
import { storeOf } from '../src/testing.ts';
import { openTempLedger, type TempLedger } from './builders.ts';

const DAY = 24 * 60 * 60 * 1000;
const START = Date.parse('2023-05-08T13:56:00Z');

/** Two people chatting over three days: [speaker, text, day]. */
const CHAT: ReadonlyArray<readonly [string, string, number]> = [
  ['Maria', 'Hey John, how was the weekend?', 0],
  ['John', 'Great, I adopted a puppy, Luna, from the shelter on Saturday.', 0],
  ['Maria', 'No way! What did you name her?', 0],
  ['John', 'Luna. She is a beagle and very loud.', 0],
  ['Maria', 'I started pottery classes downtown.', 1],
  ['John', 'Nice, send photos of the bowls.', 1],
  ['Maria', 'The teacher says my glazing is uneven.', 1],
  ['John', 'Luna chewed through my running shoes yesterday.', 2],
  ['Maria', 'Oh no, those were new.', 2],
  ['John', 'I ordered a sturdier pair online.', 2],
];

describe('recallTurns', () => {
  let temp: TempLedger;
  let context: LedgerContext;
  let ids: string[];
  beforeEach(async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession();
    ids = [];
    for (const [index, [speaker, text, day]] of CHAT.entries()) {
      const turn = await ledger.appendTurn(session.id, {
        role: speaker === 'John' ? 'assistant' : 'user',
        content: text,
        timestamp: START + day * DAY + index * 60_000,
        metadata: { author: speaker },
      });
      ids.push(turn.id);
    }
    // recallTurns reads only the store and the token counter.
    context = { store: storeOf(ledger), tokenCounter: ledger.tokenCounter } as LedgerContext;
  });
  afterEach(() => temp.cleanup());

  const head = () => ids.at(-1) as string;
  const recall = (options: Omit<RecallOptions, 'budgetTokens'> & { budgetTokens?: number }) =>
    recallTurns(context, head(), { budgetTokens: 400, ...options });

  it('renders a dated line per day and [id speaker] per turn, oldest first, … where turns were skipped', async () => {
    const result = await recall({ query: 'What did John name the puppy he adopted?', neighbours: 0 });
    expect(result.text.startsWith(RECALL_HEADER)).toBe(true);
    // The dated line carries the time of the day's first recalled turn.
    expect(result.text).toMatch(/\n\(2023-05-08 13:5\d UTC\)\n/);
    expect(result.text).toContain(`\n[${ids[1]} John] Great, I adopted a puppy, Luna, from the shelter on Saturday.`);
    expect(result.text.match(/\(2023-05-08 /g)).toHaveLength(1);
    const lines = result.text.split('\n').slice(1);
    const order = lines.map((line) => ids.findIndex((id) => line.startsWith(`[${id} `))).filter((index) => index >= 0);
    expect(order).toEqual([...order].sort((left, right) => left - right));
    expect(result.tokens).toBe(context.tokenCounter.countText(result.text));
  });

  it('brings the turn beside a match: the reply a question got', async () => {
    // "name" matches Maria's question; John's answer ("Luna…") shares no word with the query.
    const without = await recall({ query: 'name', neighbours: 0 });
    expect(without.pieces.flatMap((piece) => piece.turnIds)).toEqual([ids[2]]);
    const withNeighbours = await recall({ query: 'name', neighbours: 1 });
    expect(withNeighbours.pieces.flatMap((piece) => piece.turnIds)).toEqual([ids[2], ids[3], ids[1]]);
    expect(withNeighbours.text).toContain('Luna. She is a beagle');
  });

  it('values a neighbour far longer than its match down (neighbourLengthRatio)', async () => {
    const { ledger } = temp;
    const session = await ledger.createSession();
    const say = async (role: 'user' | 'assistant', text: string) =>
      (await ledger.appendTurn(session.id, { role, content: text })).id;
    const weak = await say('user', 'The kiln door sticks again.');
    await say('assistant', 'I will oil the hinge.');
    const question = await say('user', 'Which kiln temperature for stoneware?');
    const essay = await say('assistant', `It depends. ${'Firing schedules vary with clay body, glaze and size. '.repeat(12)}`);
    const at = await say('user', 'Thanks.');
    // Everything fits: the order recall picks turns in is the order of their value.
    const order = async (ratio: number) =>
      (
        await recallTurns(context, at, {
          query: 'kiln stoneware temperature',
          budgetTokens: 2000,
          neighbourLengthRatio: ratio,
        })
      ).pieces.flatMap((piece) => piece.turnIds);
    const off = await order(0);
    const on = await order(2);
    expect(off.indexOf(essay)).toBeLessThan(off.indexOf(weak));
    expect(on.indexOf(essay)).toBeGreaterThan(on.indexOf(weak));
    expect(on[0]).toBe(question);
  });

  it('widens the query with the first matches’ strongest words when feedback is on (multi-hop)', async () => {
    // The shoes turn names Luna, never the puppy: only feedback from the adoption turn reaches it.
    const query = 'what happened with the puppy from the shelter';
    const plain = await recall({ query, neighbours: 0, feedbackTerms: 0 });
    expect(plain.pieces.flatMap((piece) => piece.turnIds)).not.toContain(ids[7]);
    const widened = await recall({ query, neighbours: 0, feedbackTerms: 4, feedbackFrom: 1 });
    expect(widened.pieces.flatMap((piece) => piece.turnIds)).toContain(ids[7]);
  });

  it('sees only the line up to the turn asked at, and never an excluded turn', async () => {
    const early = await recallTurns(context, ids[4] as string, { query: 'Luna shoes', budgetTokens: 400 });
    expect(early.pieces.flatMap((piece) => piece.turnIds).every((id) => ids.indexOf(id) <= 4)).toBe(true);
    const excluded = await recall({ query: 'Luna', excludeTurnIds: new Set([ids[3] as string, ids[7] as string]) });
    expect(excluded.pieces.flatMap((piece) => piece.turnIds)).not.toEqual(expect.arrayContaining([ids[3]]));
    expect(excluded.text).not.toContain('chewed');
  });

  it('stays within any budget, never repeats a turn, and answers the same twice (property)', async () => {
    const queries = ['puppy name', 'Luna shoes pottery', 'glazing teacher', 'nothing zzz', 'what did Maria do on the weekend?'];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 600 }),
        fc.constantFrom(...queries),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 4 }),
        fc.constantFrom('value' as const, 'density' as const),
        async (budget, query, neighbours, feedback, packing) => {
          const options = { query, budgetTokens: budget, neighbours, feedbackTerms: feedback, packing };
          const result = await recall(options);
          expect(result.tokens).toBeLessThanOrEqual(budget);
          expect(context.tokenCounter.countText(result.text)).toBe(result.tokens);
          const turnIds = result.pieces.flatMap((piece) => piece.turnIds);
          expect(new Set(turnIds).size).toBe(turnIds.length);
          for (const id of turnIds) {
            const text = contentText([{ type: 'text', text: CHAT[ids.indexOf(id)]?.[1] ?? '' }]);
            expect(result.text).toContain(text);
          }
          expect(await recall(options)).toEqual(result);
        },
      ),
      { numRuns: 80 },
    );
  });
});
