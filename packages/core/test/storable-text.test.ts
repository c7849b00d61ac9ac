// The text rule on its own: which strings pass (whole surrogate pairs, combining and bidi marks,
// noncharacters, a backslash-u written as text) and which are refused (a lone high or low
// surrogate anywhere, a NUL), and that the refusal names the path and the index. Checked against
// an independent oracle too: a string passes exactly when it survives UTF-8 unchanged and has no NUL.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertStorableText, InvalidInputError, unstorableTextIndex } from '../src/index.ts';

function refusal(value: unknown, field = 'field'): InvalidInputError {
  try {
    assertStorableText(value, field);
  } catch (error) {
    if (InvalidInputError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe('unstorableTextIndex', () => {
  it('passes well-formed text, however it combines', () => {
    for (const text of [
      '',
      'plain',
      '\u{1f600}',
      'e\u0301\u0301',
      '\u202eabc\u202c',
      '\u200f',
      '\ufeff',
      '\uffff',
      '\u{10ffff}',
      '\\u0000',
    ]) {
      expect(unstorableTextIndex(text), JSON.stringify(text)).toBeNull();
    }
  });

  it('finds the first lone surrogate or NUL by its UTF-16 index', () => {
    expect(unstorableTextIndex('ann\ud83d')).toBe(3);
    expect(unstorableTextIndex('\ude00x')).toBe(0);
    expect(unstorableTextIndex('\u{1f600}\ude00')).toBe(2);
    expect(unstorableTextIndex('\ud83d\ud83d\ude00')).toBe(0);
    expect(unstorableTextIndex('ab\u0000')).toBe(2);
  });

  it('agrees with UTF-8: a string passes exactly when it survives encoding unchanged and has no NUL', () => {
    const unit = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.constantFrom('\ud83d', '\ude00', '\ud800', '\udfff', '\u0000'),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (text) => {
        const survives = !text.includes('\0') && Buffer.from(text, 'utf8').toString('utf8') === text;
        expect(unstorableTextIndex(text) === null).toBe(survives);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('assertStorableText', () => {
  it('walks arrays, object keys and values, and names the path', () => {
    expect(refusal({ items: ['ok', { text: 'a\u0000' }] }, 'payload')).toMatchObject({ field: 'payload.items[1].text' });
    const key = refusal({ nested: { 'k\ud800': 1 } }, 'metadata');
    expect(key.field).toBe('metadata.nested');
    expect(key.message).toBe(
      'the key "k\\ud800" of metadata.nested holds a lone surrogate (U+D800) at index 1 (in UTF-16 code units): half of a ' +
        'character such as an emoji, cut where the text was split; send the whole character, or replace the half with ' +
        'U+FFFD (String.prototype.toWellFormed) before sending.',
    );
    expect(refusal('a\u0000', 'author').message).toContain('author holds a NUL (U+0000) at index 1');
  });

  it('accepts JSON values of any other kind, and skips keys JSON would drop', () => {
    expect(() => assertStorableText({ n: 1, b: true, z: null, list: [1, '\u{1f600}'], '\ud800': undefined }, 'x')).not.toThrow();
  });

  it('stops at a cycle instead of recursing forever', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(refusal(cyclic, 'payload').field).toBe('payload.self');
  });
});
