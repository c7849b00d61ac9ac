// ledger.recall (retrieval/recall-ranking.ts): the hybrid context's recall ranking through the public
// API, before any budget. It must be the ranking the context packs from: the turns a budgeted
// context retrieves are its best ones that fit, and the neighbours of a match come with a share of
// its value.
import { InvalidInputError } from '@agent-ledger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentsLedger } from '../src/index.ts';
import { openTempLedger, type TempLedger } from './builders.ts';

const START = Date.parse('2023-05-08T13:56:00Z');
const CHAT: ReadonlyArray<readonly [string, string]> = [
  ['Maria', 'Hey John, how was the weekend?'],
  ['John', 'Great, I adopted a puppy from the shelter on Saturday.'],
  ['Maria', 'No way! What did you name her?'],
  ['John', 'Luna.'],
  ['Maria', 'I started pottery classes downtown.'],
  ['John', 'Nice, send photos of the bowls.'],
  ['Maria', 'The teacher says my glazing is uneven.'],
  ['John', 'Luna chewed through my running shoes yesterday.'],
  ['Maria', 'Oh no, those were new.'],
  ['John', 'I ordered a sturdier pair online.'],
];

describe('ledger.recall', () => {
  let temp: TempLedger;
  let ledger: AgentsLedger;
  let ids: string[];
  beforeEach(async () => {
    temp = openTempLedger();
    ledger = temp.ledger;
    const session = await ledger.createSession();
    ids = [];
    for (const [index, [speaker, text]] of CHAT.entries()) {
      const turn = await ledger.appendTurn(session.id, {
        role: speaker === 'John' ? 'assistant' : 'user',
        content: text,
        timestamp: START + index * 60_000,
        metadata: { author: speaker },
      });
      ids.push(turn.id);
    }
  });
  afterEach(() => temp.cleanup());
  const head = () => ids.at(-1) as string;

  it('ranks the match first and brings the answer beside it at a share of its value', async () => {
    const { turns, rankedByMeaningWith } = await ledger.recall(head(), { query: 'adopted puppy', limit: 10 });
    expect(rankedByMeaningWith).toBeNull();
    expect(turns[0]?.turn.id).toBe(ids[1]);
    const values = new Map(turns.map(({ turn, value }) => [turn.id, value]));
    const best = values.get(ids[1] as string) as number;
    // One step away, short: 0.7 of the match (neighbourShare); two steps: 0.49.
    expect(values.get(ids[2] as string)).toBeCloseTo(best * 0.7, 6);
    expect(values.get(ids[3] as string)).toBeCloseTo(best * 0.49, 6);
    // Best first throughout.
    for (let index = 1; index < turns.length; index += 1)
      expect((turns[index - 1]?.value as number) >= (turns[index]?.value as number)).toBe(true);
  });

  it('is what the hybrid context packs from: its retrieved turns are the best ones that fit', async () => {
    const query = 'What did John name the puppy he adopted?';
    const { turns } = await ledger.recall(head(), { query, limit: 50 });
    const built = await ledger.buildContext(head(), { query, retrieval: true, budgetTokens: 120 });
    expect(built.retrievedTurnIds.length).toBeGreaterThan(0);
    const rank = new Map(turns.map(({ turn }, index) => [turn.id, index]));
    for (const id of built.retrievedTurnIds) expect(rank.has(id), id).toBe(true);
    // The best-ranked turn is always among those a budget that holds it retrieves.
    expect(built.retrievedTurnIds).toContain(turns[0]?.turn.id);
  });

  it('honours limit, the tuning and the line: no turn after the one asked at', async () => {
    const { turns } = await ledger.recall(head(), { query: 'Luna shoes puppy', limit: 2 });
    expect(turns).toHaveLength(2);
    const alone = await ledger.recall(head(), { query: 'adopted puppy', neighbours: 0 });
    expect(alone.turns.map(({ turn }) => turn.id)).toEqual([ids[1]]);
    const early = await ledger.recall(ids[2] as string, { query: 'Luna shoes' });
    expect(early.turns.every(({ turn }) => ids.indexOf(turn.id) <= 2)).toBe(true);
  });

  it('refuses a missing query or a limit out of range with INVALID_INPUT', async () => {
    for (const options of [
      { query: '  ' },
      { query: 'Luna', limit: 0 },
      { query: 'Luna', limit: 501 },
      { query: 'Luna', limit: 1.5 },
    ]) {
      const failure = await ledger.recall(head(), options).catch((error: unknown) => error);
      expect(InvalidInputError.isInstance(failure), JSON.stringify(options)).toBe(true);
    }
  });
});
