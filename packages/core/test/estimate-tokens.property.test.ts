// The token estimate is read by a character scan (for speed); it must count exactly what its
// definition says, here written as the regular expression it was first written with: runs of ASCII
// letters (10 a token), runs of digits (3 a token), runs of whitespace (16 a token, a single one
// free) and one token for every other UTF-16 unit.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTokenCounter } from '../src/index.ts';

function byRegularExpression(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(/[A-Za-z]+|[0-9]+|\s+|[^A-Za-z0-9\s]/g)) {
    const piece = match[0];
    const first = piece.charCodeAt(0);
    if (piece.trim() === '') {
      if (piece.length > 1) tokens += Math.ceil(piece.length / 16);
    } else if (first >= 48 && first <= 57) tokens += Math.ceil(piece.length / 3);
    else if ((first >= 65 && first <= 90) || (first >= 97 && first <= 122)) tokens += Math.ceil(piece.length / 10);
    else tokens += 1;
  }
  return tokens;
}

const SPACES = [
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  ' ',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
  '\u180e',
  '\u200b',
];

describe('estimateTokenCounter.countText', () => {
  it('counts as the regular expression defines, on any text', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.stringMatching(/^[A-Za-z0-9 ]{0,40}$/),
      fc.constantFrom(...SPACES).map((space) => space.repeat(3)),
      fc.string({ unit: 'binary' }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(estimateTokenCounter.countText(text)).toBe(byRegularExpression(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the counts the budgets were measured with', () => {
    expect(estimateTokenCounter.countText('')).toBe(0);
    expect(estimateTokenCounter.countText('We pinned MySQL 5.7.44 on db-3.')).toBe(
      byRegularExpression('We pinned MySQL 5.7.44 on db-3.'),
    );
    expect(estimateTokenCounter.countText('internationalization')).toBe(2);
    expect(estimateTokenCounter.countText('1234567')).toBe(3);
    expect(estimateTokenCounter.countText('a\n\n\nb')).toBe(3);
    expect(estimateTokenCounter.countText('😀')).toBe(2);
  });
});
