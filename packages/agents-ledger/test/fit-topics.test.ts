// The policy that decides which topics, and how much of each, go into a context's room: every topic
// whole when all fit, otherwise each as deep as the room allows, its header saying how many lines
// were left out. Pure, so it is tested on plain arrays; the ledger's own use is tested in
// union-find-topics.test.ts.

import { estimateTokenCounter } from '@agent-ledger/core';
import { lineSalience } from '@agent-ledger/summarizers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FittedTopic, fitTopics, type TopicToFit, trimmedHeader } from '../src/index.ts';

const counter = estimateTokenCounter;
const options = { tokenCounter: counter, lineValues: (lines: readonly string[]) => lineSalience(lines, counter) };

function topic(id: string, lines: readonly string[], extra: Partial<TopicToFit> = {}): TopicToFit {
  const block = [`[topic ${id} · 2023-01-01 10:00 · compacts=${lines.length} compaction=50%]`, ...lines].join('\n');
  return { id, block, blockTokens: counter.countText(block), position: 0, touched: 0, similarity: null, ...extra };
}

/** What the fitted topics cost as a context shows them: blocks joined by blank lines. */
function shownTokens(chosen: readonly FittedTopic[]): number {
  return chosen.reduce((total, fitted) => total + counter.countText(fitted.block) + 1, 0);
}

const FACTS = [
  '[t_a1] I adopted a beagle named Luna from the shelter last week.',
  '[t_a2] Yeah, that sounds great!',
  '[t_a3] We moved to Portland in March and I started a new job at the library.',
  '[t_a4] Wow, so inspiring!',
  '[t_a5] My sister Ana ran the Boston marathon in 3 hours 41 minutes.',
  '[t_a6] Totally, I agree with you.',
];

describe('fitTopics', () => {
  it('shows every topic whole, in root order, when all fit', () => {
    const topics = [
      topic('t_b', FACTS.slice(0, 2), { position: 1, touched: 9 }),
      topic('t_a', FACTS.slice(2, 4), { position: 0, touched: 1 }),
    ];
    const room = topics.reduce((total, item) => total + item.blockTokens + 1, 0);
    const { chosen, omittedTopicIds } = fitTopics(topics, room, options);
    expect(chosen.map((fitted) => fitted.id)).toEqual(['t_a', 't_b']);
    expect(chosen.map((fitted) => fitted.block)).toEqual([topics[1]?.block, topics[0]?.block]);
    expect(chosen.every((fitted) => fitted.linesLeftOut === 0)).toBe(true);
    expect(omittedTopicIds).toEqual([]);
  });

  it('shows a topic larger than the room by its best lines, with a header saying how many are left out', () => {
    const big = topic('t_big', FACTS);
    // Room for the header (with its note) and the three facts, and nothing else.
    const facts = [FACTS[0], FACTS[2], FACTS[4]] as string[];
    const room = counter.countText([trimmedHeader(big.block.split('\n')[0] as string, 3), ...facts].join('\n')) + 1;
    expect(room).toBeLessThan(big.blockTokens);
    const { chosen, omittedTopicIds } = fitTopics([big], room, options);
    expect(omittedTopicIds).toEqual([]);
    const [fitted] = chosen;
    expect(fitted?.linesLeftOut).toBeGreaterThan(0);
    const [header, ...shown] = (fitted?.block ?? '').split('\n');
    expect(header).toBe(trimmedHeader(big.block.split('\n')[0] as string, fitted?.linesLeftOut ?? 0));
    expect(header).toContain(`· ${fitted?.linesLeftOut} more line`);
    // The facts stay, the pleasantries go, and what is shown keeps the stored order.
    expect(shown).toEqual(facts);
    expect(shown).toEqual(FACTS.filter((line) => shown.includes(line)));
    expect(shown.length + (fitted?.linesLeftOut ?? 0)).toBe(FACTS.length);
    expect(shownTokens(chosen)).toBeLessThanOrEqual(room);
    expect(fitted?.tokens).toBe(counter.countText(fitted?.block ?? ''));
  });

  it('lets a one-line topic of chit-chat in only when its line is worth its header', () => {
    const big = topic('t_big', FACTS, { touched: 1 });
    const chatter = topic('t_chat', ['[t_c1] Haha yeah, totally!'], { touched: 9, position: 1 });
    const room = Math.floor(big.blockTokens * 0.8);
    const { chosen, omittedTopicIds } = fitTopics([big, chatter], room, options);
    expect(chosen.map((fitted) => fitted.id)).toEqual(['t_big']);
    expect(omittedTopicIds).toEqual(['t_chat']);
  });

  it('fills the topics near the query first, as deep as they go', () => {
    const near = topic('t_near', FACTS.slice(0, 3), { similarity: 0.4, position: 1 });
    const far = topic('t_far', FACTS.slice(3), { similarity: 0, position: 0, touched: 5 });
    const room = near.blockTokens + 1 + 4;
    const { chosen } = fitTopics([near, far], room, options);
    expect(chosen.map((fitted) => [fitted.id, fitted.linesLeftOut])).toEqual([['t_near', 0]]);
    expect(chosen[0]?.block).toBe(near.block);
    expect(chosen[0]?.similarity).toBe(0.4);
  });

  it('shows a topic with no lines as its header alone, after every topic with something to say', () => {
    const bare = topic('t_bare', [], { position: 1, touched: 9 });
    const big = topic('t_big', FACTS);
    // Room for the bare header, not for the big topic's header and a line.
    const { chosen, omittedTopicIds } = fitTopics([big, bare], bare.blockTokens + 2, options);
    expect(chosen.map((fitted) => [fitted.id, fitted.block])).toEqual([['t_bare', bare.block]]);
    expect(omittedTopicIds).toEqual(['t_big']);
    // Omitted in priority order: the most recently touched first.
    expect(fitTopics([big, bare], 3, options)).toEqual({ chosen: [], omittedTopicIds: ['t_bare', 't_big'] });
  });

  it('neither shows nor counts blank lines: a topic whose every other line fits is shown whole', () => {
    const spaced = topic('t_spaced', [FACTS[0] as string, '', FACTS[2] as string, '  '], { touched: 9 });
    const big = topic('t_big', FACTS, { position: 1 });
    // Room for the spaced topic whole, and a little of the big one.
    const room = spaced.blockTokens + 1 + Math.floor(big.blockTokens / 2);
    const { chosen } = fitTopics([spaced, big], room, options);
    const shown = chosen.find((fitted) => fitted.id === 't_spaced');
    expect(shown?.linesLeftOut).toBe(0);
    expect(shown?.block).toBe(spaced.block);
    const trimmed = fitTopics([spaced], counter.countText(trimmedHeader(spaced.block.split('\n')[0] as string, 1)) + 25, options);
    expect(trimmed.chosen.map((fitted) => fitted.linesLeftOut)).toEqual([1]);
    const [shownLine, ...rest] = trimmed.chosen[0]?.block.split('\n').slice(1) ?? [];
    expect(rest).toEqual([]);
    expect([FACTS[0], FACTS[2]]).toContain(shownLine);
  });

  it('cites a turn by its best sentence when its whole line is not worth the room, and marks the line shortened', () => {
    const lines = [
      '[t_s1] I adopted a beagle named Luna from the shelter last week. She was so tiny and scared at first, honestly.',
      '[t_s2] My sister Ana ran the Boston marathon in 3 hours 41 minutes. We were all super proud of her, really.',
      '[t_s3] We moved to Portland in March and I started a new job at the library.',
    ];
    const big = topic('t_big', lines);
    const firstSentences = [
      '[t_s1] I adopted a beagle named Luna from the shelter last week. …',
      '[t_s2] My sister Ana ran the Boston marathon in 3 hours 41 minutes. …',
      lines[2] as string,
    ];
    // Room for every turn by its first sentence, not for any line whole beside the other two.
    const room = counter.countText([big.block.split('\n')[0], ...firstSentences].join('\n')) + 1;
    expect(room).toBeLessThan(big.blockTokens + 1);
    const { chosen } = fitTopics([big], room, options);
    const shown = chosen[0]?.block.split('\n').slice(1);
    // Line by line, three turns cited by their facts; whole lines would have cited two.
    expect(shown).toEqual(firstSentences);
    expect(chosen[0]?.linesLeftOut).toBe(0);
    expect(shownTokens(chosen)).toBeLessThanOrEqual(room);
  });

  it('shows whole lines of a topic near the query (the sentence a question is about may be any)', () => {
    const lines = [
      '[t_s1] I adopted a beagle named Luna from the shelter last week. She was so tiny and scared at first, honestly.',
      '[t_s2] My sister Ana ran the Boston marathon in 3 hours 41 minutes. We were all super proud of her, really.',
    ];
    const near = topic('t_near', lines, { similarity: 0.5 });
    const room =
      counter.countText(trimmedHeader(near.block.split('\n')[0] as string, 1)) + counter.countText(lines[1] as string) + 2;
    const { chosen } = fitTopics([near], room, options);
    const shown = chosen[0]?.block.split('\n').slice(1) ?? [];
    expect(shown).toHaveLength(1);
    expect(lines).toContain(shown[0]);
  });

  it('property: within the room, lines are stored lines in stored order, every topic chosen or omitted once', () => {
    const lineArbitrary = fc
      .tuple(
        fc.constantFrom(
          ...FACTS,
          '[t_x] Sure thing.',
          '[t_y] The port is 6543 on db-2.internal.',
          'Plain prose line.',
          '[t_z] Hey Nate! I went to the park with my two dogs yesterday. They loved it so much, we stayed for hours.',
        ),
        fc.nat(99),
      )
      .map(([text, n]) => text.replace(/\[t_\w+\]/, `[t_${n}]`));
    const topicsArbitrary = fc
      .array(
        fc.record({
          lines: fc.array(lineArbitrary, { minLength: 0, maxLength: 12 }),
          touched: fc.nat(50),
          similarity: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
        }),
        { minLength: 1, maxLength: 8 },
      )
      .map((specs) => specs.map((spec, index) => topic(`t_${index}`, spec.lines, { ...spec, position: index })));
    fc.assert(
      fc.property(topicsArbitrary, fc.integer({ min: 0, max: 600 }), (topics, room) => {
        const { chosen, omittedTopicIds } = fitTopics(topics, room, options);
        expect(shownTokens(chosen)).toBeLessThanOrEqual(room);
        expect([...chosen.map((fitted) => fitted.id), ...omittedTopicIds].sort()).toEqual(topics.map((item) => item.id).sort());
        expect(chosen.map((fitted) => fitted.id)).toEqual(
          topics.filter((item) => chosen.some((fitted) => fitted.id === item.id)).map((item) => item.id),
        );
        for (const fitted of chosen) {
          const stored = (topics.find((item) => item.id === fitted.id) as TopicToFit).block.split('\n').slice(1);
          const shown = fitted.block.split('\n').slice(1);
          // A subsequence of the stored lines: each shown line found after the previous one, whole or
          // shortened (its citation and some of its sentences, in order, then " …").
          let cursor = 0;
          for (const line of shown) {
            const next = stored.findIndex((storedLine, index) => index >= cursor && isShownFormOf(line, storedLine));
            expect(next, line).toBeGreaterThanOrEqual(0);
            cursor = next + 1;
          }
          expect(shown.length + fitted.linesLeftOut).toBe(stored.length);
        }
        const whole = topics.reduce((total, item) => total + item.blockTokens + 1, 0);
        if (whole <= room) expect(chosen.every((fitted) => fitted.linesLeftOut === 0)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

/** `shown` is `stored` whole, or its citation and some of its words in order, ending with " …". */
function isShownFormOf(shown: string, stored: string): boolean {
  if (shown === stored) return true;
  if (!shown.endsWith(' …')) return false;
  const citation = stored.match(/^\[[^\]]+\] /)?.[0] ?? '';
  if (!shown.startsWith(citation)) return false;
  const storedWords = stored.slice(citation.length).split(' ');
  let cursor = 0;
  for (const word of shown.slice(citation.length, -2).split(' ')) {
    cursor = storedWords.indexOf(word, cursor) + 1;
    if (cursor === 0) return false;
  }
  return true;
}
