// In a personal conversation the facts later questions ask about are what happened to a speaker, and
// when ("I adopted a puppy last week"); replies about the other person ("that's so inspiring") are
// not. The scorer ranks the first above the second, in a summary and in a summary cut to its best
// lines (lineSalience).

import { estimateTokenCounter } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import { lineSalience } from './line-salience.ts';
import { lineIds, summarize, turnsFrom } from './test-helpers.ts';

const REACTIONS = [
  'Wow John, your enthusiasm for making a better future is really inspiring to everyone around you.',
  'Networking is great for gaining new perspectives and insights into things.',
  'You never know the difference a kind gesture can make in somebody else.',
  'Connecting with others and discovering fun activities is always awesome.',
];
const EVENTS = [
  'I adopted a puppy from the shelter last week.',
  'We went camping in the mountains last weekend.',
  'I started taking a poetry class this month.',
  'My grandma passed away a few months ago.',
];

describe('conversation facts', () => {
  it('a summary with room for a few lines keeps what happened to the speaker over reactions to the other', async () => {
    for (const [position, event] of EVENTS.entries()) {
      const turns = turnsFrom(...REACTIONS.slice(0, 2), event, ...REACTIONS.slice(2));
      const result = await summarize({ turns, targetTokens: 20 });
      expect(lineIds(result.text), event).toEqual([turns[2]?.id]);
      expect(result.text, `event ${position}`).toContain(event.split(' ').slice(0, 3).join(' '));
    }
  });

  it('lineSalience ranks event lines above reaction lines per token, ignores citations, and gives a blank line 0', () => {
    const lines = [
      ...REACTIONS.map((text, index) => `[t_r${index}] ${text}`),
      ...EVENTS.map((text, index) => `[t_e${index}] ${text}`),
      '',
    ];
    const values = lineSalience(lines, estimateTokenCounter);
    // Value per square root of tokens: how a context fitting topics to its room ranks lines.
    const perToken = values.map(
      (value, index) => value / Math.sqrt(Math.max(8, estimateTokenCounter.countText(lines[index] ?? ''))),
    );
    const reactions = perToken.slice(0, REACTIONS.length);
    const events = perToken.slice(REACTIONS.length, REACTIONS.length + EVENTS.length);
    expect(Math.min(...events)).toBeGreaterThan(Math.max(...reactions));
    expect(values.at(-1)).toBe(0);
    // A citation prefix does not change a line's worth.
    const bare = lineSalience([...REACTIONS, ...EVENTS, ''], estimateTokenCounter);
    expect(values).toEqual(bare);
  });
});
