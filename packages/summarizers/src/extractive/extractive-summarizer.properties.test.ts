// Properties of the extractive summarizer over random input, and its speed on a long conversation.

import { estimateTokenCounter, type TokenCounter } from '@agent-ledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineIds, summarize, textFromSources, turn } from './test-helpers.ts';

describe('createExtractiveSummarizer budget and citation properties', () => {
  const idArbitrary = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
  const wordArbitrary = fc.constantFrom(
    'we',
    'pinned',
    'MySQL',
    '5.7.44',
    'on',
    'db-3.',
    'Port',
    '3307',
    'is',
    'open.',
    'Thanks!',
    'ok',
    '/etc/nginx/nginx.conf',
    'https://example.com/a.b',
    'e.g.',
    '`make',
    'deploy`',
    '--force',
    'NODE_ENV',
    'Alice',
    '?',
    '\n',
    '\n```\n',
    '- ',
    '[t_1]',
    'émigré',
    '🙂',
    'x'.repeat(120),
  );
  const textArbitrary = fc.array(wordArbitrary, { maxLength: 60 }).map((words) => words.join(' '));
  const inputArbitrary = fc.record({
    turns: fc.array(
      fc.record({ id: idArbitrary, role: fc.constantFrom('user' as const, 'assistant' as const), text: textArbitrary }),
      {
        maxLength: 12,
      },
    ),
    previousSummary: fc.option(
      fc
        .array(fc.tuple(fc.option(idArbitrary), textArbitrary), { maxLength: 5 })
        .map((lines) => lines.map(([id, text]) => (id === null ? text : `[${id}] ${text}`)).join('\n')),
      { nil: undefined },
    ),
    targetTokens: fc.integer({ min: 1, max: 300 }),
    instructions: fc.option(textArbitrary, { nil: undefined }),
  });
  // Charges more for a long text than for its parts, so a per-sentence cost sum underestimates it.
  const superadditiveCounter: TokenCounter = {
    name: 'superadditive',
    countText: (text) => Math.ceil(text.length ** 1.15 / 4),
  };

  for (const counter of [estimateTokenCounter, superadditiveCounter]) {
    it(`never exceeds targetTokens and cites only known ids (${counter.name} counter)`, async () => {
      await fc.assert(
        fc.asyncProperty(inputArbitrary, async (input) => {
          const result = await summarize(input, counter);
          expect(counter.countText(result.text)).toBeLessThanOrEqual(input.targetTokens);
          expect(result.usage.outputTokens).toBe(counter.countText(result.text));
          const previousIds = [...(input.previousSummary ?? '').matchAll(/^\[([A-Za-z0-9_-]+)\]/gm)].map((match) => match[1]);
          const knownIds = new Set([...input.turns.map((each) => each.id), ...previousIds, 'summary']);
          for (const id of lineIds(result.text)) expect(knownIds).toContain(id);
          expect(textFromSources(result.sources ?? [])).toBe(result.text);
        }),
        { numRuns: 150 },
      );
    });
  }
});

// Its speed is measured by scripts/bench, never asserted here.
describe('createExtractiveSummarizer at scale', () => {
  it('summarizes 5,000 turns of about 100 words within the budget', async () => {
    const turns = Array.from({ length: 5_000 }, (_, turnIndex) => turn(`t_${turnIndex}`, generatedProse(turnIndex, 100)));
    const result = await summarize({ turns, targetTokens: 20_000 });
    expect(estimateTokenCounter.countText(result.text)).toBeLessThanOrEqual(20_000);
    expect(result.sources?.length).toBeGreaterThan(100);
  });
});

/** Deterministic prose: sentences of 6 to 17 words from a mixed vocabulary, some with a specific detail. */
function generatedProse(seed: number, wordCount: number): string {
  const vocabulary = (
    'the a we it service database cache queue deploy release config server user request latency error retry build test ' +
    'branch merge review schema index query table migration rollback monitor alert budget owner team plan week today ' +
    'should will could because after before while during failed passed slow fast stable broken fixed moved added removed'
  ).split(' ');
  const details = [
    'MySQL 5.7.44',
    '/etc/nginx/nginx.conf',
    'port 3307',
    'getUserById',
    'DB_HOST',
    '--force',
    'Alice',
    '10.0.0.12',
  ];
  let state = seed + 1;
  const next = (limit: number): number => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return (state >>> 8) % limit;
  };
  const sentences: string[] = [];
  for (let written = 0; written < wordCount; ) {
    const length = 6 + next(12);
    const words = Array.from({ length }, () => vocabulary[next(vocabulary.length)] ?? '');
    if (next(3) === 0) words.splice(2, 0, details[next(details.length)] ?? '');
    const sentence = words.join(' ');
    sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`);
    written += length;
  }
  return sentences.join(' ');
}
