// Recall reads who a question names and which day it names (issue 30): a named speaker's own turns
// are valued up and the name is not searched for; the turns said on a named date are searched apart
// (a time-bounded search: on both engines).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerContext } from '../src/ledger-context.ts';
import { namedDates } from '../src/retrieval/date-terms.ts';
import { type RecallOptions, recallTurns } from '../src/retrieval/recall-turns.ts';
import { splitSpeakerTerms } from '../src/retrieval/speaker-terms.ts';
import { storeOf } from '../src/testing.ts';
import { type EngineLedger, engines, openEngineLedger } from './builders.ts';

const DAY = 24 * 60 * 60 * 1000;
const START = Date.parse('2023-05-08T13:56:00Z');

/** [speaker, text, day]: John's hobbies never name him; Maria's greetings do. */
const CHAT: ReadonlyArray<readonly [string, string, number]> = [
  ['Maria', 'Hey John! Did you finish the sport documentary?', 0],
  ['John', 'Not yet. I started taekwondo classes this week, a tough sport.', 0],
  ['Maria', 'John, my sister loves that sport too, she is a coach.', 0],
  ['Maria', 'My pottery bowl cracked in the kiln again.', 1],
  ['John', 'Sorry to hear that.', 1],
  ['Maria', 'The new pottery glaze came out green instead of blue.', 2],
  ['John', 'Green sounds nice anyway.', 2],
];

for (const { engine, title, skip } of engines()) {
  describe.skipIf(skip)(`recall: speakers and dates the question names, ${title}`, () => {
    let opened: EngineLedger;
    let context: LedgerContext;
    let ids: string[];
    beforeEach(async () => {
      opened = await openEngineLedger(engine, {}, 'recall_named');
      const { ledger } = opened;
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
      context = { store: storeOf(ledger), tokenCounter: ledger.tokenCounter } as LedgerContext;
    });
    afterEach(() => opened.cleanup());

    /** Turn ids in the order recall values them (everything fits, no neighbours). */
    const order = async (options: Omit<RecallOptions, 'budgetTokens'>) =>
      (await recallTurns(context, ids.at(-1) as string, { budgetTokens: 2000, neighbours: 0, ...options })).pieces.flatMap(
        (piece) => piece.turnIds,
      );

    it("values the named speaker's own turn over turns that only say the name", async () => {
      const query = 'What sport has John taken up?';
      // As plain words, "John" and "sport" both rank Maria's greetings, which hold the two of them.
      const plain = await order({ query, speakerWeight: 0 });
      expect(plain[0]).not.toBe(ids[1]);
      const byDefault = await order({ query });
      expect(byDefault[0]).toBe(ids[1]);
    });

    it('ranks the best match said on the named day first', async () => {
      const query = 'What happened with Maria’s pottery on 10 May, 2023?';
      const undated = await order({ query, dateWeight: 0 });
      // Both pottery turns match; without the date the engine's own ranking decides between them.
      expect(undated.slice(0, 2).sort()).toEqual([ids[3], ids[5]].sort());
      expect((await order({ query }))[0]).toBe(ids[5]);
      // A month names every day in it: both turns are in May, so the engine's order stands.
      expect((await order({ query: 'Maria’s pottery in May 2023' }))[0]).toBe(undated[0]);
      if (engine === 'sqlite') expect(undated[0]).toBe(ids[3]);
      // The day before names the other turn.
      expect((await order({ query: 'What happened with Maria’s pottery on 9 May, 2023?' }))[0]).toBe(ids[3]);
    });
  });
}

describe('reading speakers and dates', () => {
  it('reads days and months in the forms questions use, and no day that does not exist', () => {
    const day = (text: string) => namedDates(text).map((date) => new Date(date.since).toISOString().slice(0, 10));
    expect(day('as mentioned on 3 June, 2023?')).toEqual(['2023-06-03']);
    expect(day('dinner on May 3, 2023')).toEqual(['2023-05-03']);
    expect(day('on August 15th 2023 and 2023-02-01')).toEqual(['2023-08-15', '2023-02-01']);
    expect(day('on 31 June 2023')).toEqual([]);
    const [month] = namedDates('in December 2022');
    expect(month && [new Date(month.since).toISOString(), new Date(month.until).toISOString()]).toEqual([
      '2022-12-01T00:00:00.000Z',
      '2022-12-31T23:59:59.999Z',
    ]);
    expect(month?.words).toEqual(expect.arrayContaining(['december', '2022']));
  });

  it('splits the speakers a query names from its other words, possessives included', () => {
    const split = splitSpeakerTerms(['maria’s', 'pottery', 'john'], ['Maria', 'John Smith']);
    expect([...split.named].sort()).toEqual(['John Smith', 'Maria']);
    expect(split.topicTerms).toEqual(['pottery']);
    // A query of names alone still searches by them.
    expect(splitSpeakerTerms(['maria'], ['Maria'])).toEqual({ named: new Set(), topicTerms: ['maria'] });
  });
});
