// Search results every engine must give alike (issue 28): scores that are FTS5's bm25 to the
// digit (@agent-ledger/store search-bm25.ts), and snippets cut by the store's one rule
// (search-snippet.ts) that keep an identifier a matched word is part of whole.

import { expect, it } from 'vitest';
import { bm25Idf, bm25Term } from '../search-bm25.ts';
import type { OpenStore } from './open-per-case.ts';
import { sessionSaying, words } from './search-rows.ts';

/** Filler words no query asks for, so each identifier sits deep inside a long text. */
const FILLER = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa';

const IDENTIFIERS: Array<{ identifier: string; word: string }> = [
  { identifier: '5.7.44', word: '7' },
  { identifier: 'redis-quokka-7.staging.internal', word: 'staging' },
  { identifier: 'LH-4471', word: '4471' },
  { identifier: 'src/consumer.ts', word: 'consumer' },
];

export function searchAgreementCases(open: OpenStore): void {
  it('scores a query of words by bm25 as FTS5 computes it: idf over the whole index, tf, length over average', async () => {
    const store = await open();
    const texts = [
      'gecko lemur',
      'gecko gecko gecko okapi zebra',
      'lemur okapi',
      'tapir tapir',
      'gecko lemur lemur okapi tapir zebra',
    ];
    await sessionSaying(store, 's', texts);
    const found = await store.searchTurns({ match: words('gecko lemur', 'any'), view: 'raw', limit: 10 });
    const lengths = texts.map((text) => text.split(' ').length);
    const averageLength = lengths.reduce((sum, length) => sum + length, 0) / texts.length;
    const expected = texts.map((text, index) => {
      const tokens = text.split(' ');
      return ['gecko', 'lemur'].reduce((score, word) => {
        const holding = texts.filter((each) => each.split(' ').includes(word)).length;
        const frequency = tokens.filter((token) => token === word).length;
        return score + bm25Term({ idf: bm25Idf(texts.length, holding), frequency, length: lengths[index] ?? 0, averageLength });
      }, 0);
    });
    expect(found.hits.length).toBe(4);
    for (const hit of found.hits)
      expect(hit.score).toBeCloseTo(expected[Number(hit.turnId.slice('s-t'.length))] ?? Number.NaN, 6);
  });

  it.each(IDENTIFIERS)(
    'a word of $identifier: the snippet shows the identifier whole, the word marked',
    async ({ identifier, word }) => {
      const store = await open();
      const text = `${FILLER} then ${identifier} was checked, ${FILLER} and so on until the end of the note.`;
      await sessionSaying(store, 's', [text, 'nothing to see here']);
      const found = await store.searchTurns({ match: words(word), view: 'raw', limit: 10 });
      expect(found.hits).toHaveLength(1);
      const snippet = found.hits[0]?.snippet ?? '';
      expect(snippet.replaceAll(/[[\]]/g, '')).toContain(` ${identifier} `);
      expect(snippet).toContain(`[${word}]`);
      expect(snippet.startsWith('…') && snippet.endsWith('…')).toBe(true);
    },
  );
}
