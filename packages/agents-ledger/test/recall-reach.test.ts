// Recall's default reach (issue 30): two turns either side of a match. A chat answers a question a
// turn or two after it is asked ("Where to?" "Guess." "Lisbon!"), and when a question's matches
// are few, what is left of recall's room is better spent there than on older summary lines.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerContext } from '../src/ledger-context.ts';
import { DEFAULT_RECALL_TUNING, recallTurns } from '../src/retrieval/recall-turns.ts';
import { storeOf } from '../src/testing.ts';
import { openTempLedger, type TempLedger } from './builders.ts';

const CHAT: ReadonlyArray<readonly [string, string]> = [
  ['Maria', 'Morning! Any plans for the holiday?'],
  ['John', 'We booked a trip for the holiday, finally.'],
  ['Maria', 'Where to?'],
  ['John', 'Lisbon, for five days.'],
  ['Maria', 'My cat knocked a plant over today.'],
  ['John', 'Cats do that.'],
  ['Maria', 'She looked very proud of it.'],
];

describe('recall reach', () => {
  let temp: TempLedger;
  let context: LedgerContext;
  let ids: string[];
  beforeEach(async () => {
    temp = openTempLedger();
    const session = await temp.ledger.createSession();
    ids = [];
    for (const [speaker, text] of CHAT) {
      const turn = await temp.ledger.appendTurn(session.id, {
        role: speaker === 'John' ? 'assistant' : 'user',
        content: text,
        metadata: { author: speaker },
      });
      ids.push(turn.id);
    }
    context = { store: storeOf(temp.ledger), tokenCounter: temp.ledger.tokenCounter } as LedgerContext;
  });
  afterEach(() => temp.cleanup());

  it('brings the turn two steps after a match by default, and not with one step', async () => {
    expect(DEFAULT_RECALL_TUNING.neighbours).toBe(2);
    const recalled = async (neighbours?: number) =>
      (
        await recallTurns(context, ids.at(-1) as string, {
          query: 'Where did John book the holiday trip?',
          budgetTokens: 400,
          neighbours,
        })
      ).pieces.flatMap((piece) => piece.turnIds);
    // "holiday" and "trip" match turns 0 and 1; the answer, turn 3, is two steps from turn 1.
    expect(await recalled(1)).not.toContain(ids[3]);
    expect(await recalled()).toContain(ids[3]);
  });

  it('brings neighbours for the best neighbourMatches matches only', async () => {
    expect(DEFAULT_RECALL_TUNING.neighbourMatches).toBe(100);
    const session = await temp.ledger.createSession();
    const line: string[] = [];
    const say = async (text: string) => line.push((await temp.ledger.appendTurn(session.id, { role: 'user', content: text })).id);
    await say('the quokka quokka took the ferry');
    for (let index = 0; index < 8; index += 1) await say(`unrelated chatter number ${index}`);
    await say('a quokka again');
    await say('it ate forty-two leaves');
    for (let index = 0; index < 8; index += 1) await say(`more chatter number ${index}`);
    const recalled = async (neighbourMatches: number) =>
      (
        await recallTurns(context, line.at(-1) as string, { query: 'quokka', budgetTokens: 2_000, neighbourMatches })
      ).pieces.flatMap((piece) => piece.turnIds);
    // Two matches, far apart: the weaker one's reply comes only when it may bring neighbours.
    const [weaker, reply] = [line[9], line[10]];
    expect(await recalled(1)).toContain(weaker);
    expect(await recalled(1)).not.toContain(reply);
    expect(await recalled(2)).toContain(reply);
    expect(await recalled(0)).toContain(reply);
  });
});
