// The encodings the hash chain rests on: canonical JSON (one text per value, whatever the key order)
// and the hashed text of an event. Both have a fast path on the append path; these pin them to a
// plain reference and to hashes computed before the fast paths existed, so stored chains verify.

import { createHash } from 'node:crypto';
import { InvalidInputError } from '@agent-ledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, eventHash, MAX_PAYLOAD_DEPTH } from '../src/index.ts';

/** Canonical JSON the plain way: keys sorted by code unit, undefined members dropped. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${keys.map((key) => `${JSON.stringify(key)}:${reference(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// Keys that sort differently as code units and as JavaScript's own property order (integer keys first).
const key = fc.oneof(fc.string(), fc.constantFrom('10', '9', '0', '01', 'é', 'e', '\u{1F600}', '\uFFFF', 'constructor'));
const jsonLike = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 5 }),
  ),
})).value;

describe('canonical JSON', () => {
  it('equals the plain reference encoding for any JSON value, undefined members and odd keys included', () => {
    fc.assert(
      fc.property(jsonLike, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
  });

  it('is the same text whatever the key order', () => {
    expect(canonicalJson({ b: 1, 10: 'x', a: [{ z: null, y: -0 }], 9: true })).toBe(
      canonicalJson({ 9: true, a: [{ y: -0, z: null }], 10: 'x', b: 1 }),
    );
    expect(canonicalJson({ b: 1, 10: 'x', a: [{ z: null, y: -0 }], 9: true })).toBe(
      '{"10":"x","9":true,"a":[{"y":0,"z":null}],"b":1}',
    );
  });

  it('still names the path of what JSON cannot hold, at any depth', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { back: cycle };
    const cases: Array<[unknown, string]> = [
      [{ a: [1, { b: Number.NaN }] }, 'payload.a[1].b'],
      [{ list: [1, undefined] }, 'payload.list[1]'],
      [{ when: new Date(0) }, 'payload.when'],
      [{ f: () => 1 }, 'payload.f'],
      [cycle, 'payload.self.back'],
    ];
    for (const [value, path] of cases) {
      let thrown: unknown;
      try {
        canonicalJson(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, path).toBeInstanceOf(InvalidInputError);
      expect((thrown as InvalidInputError).field, path).toBe(path);
    }
    let deep: unknown = 1;
    for (let depth = 0; depth <= MAX_PAYLOAD_DEPTH; depth += 1) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(InvalidInputError);
  });
});

describe('event hash', () => {
  const payload = canonicalJson({ text: 'héllo "world" ☃ 𝄞\n', n: [1, -0, 2.5e-7, { z: null, a: true }], 10: 'x', 9: 'y' });

  it('is the hash stored chains were written with (computed before the fast path)', () => {
    expect(
      eventHash({
        id: 'e_000001',
        channel: 'slack:C1',
        externalId: 'msg-1',
        author: null,
        kind: 'message',
        payload,
        occurredAt: 1700000001000,
        receivedAt: 1700000002000,
        seq: 1,
        prevHash: null,
      }),
    ).toBe('2818048eaf516e99fc7513a2b9971fcd82b6595acdfe9d0fa1ed33e8a9ad3de8');
    expect(
      eventHash({
        id: 'e_000002',
        channel: 'slack:C1',
        externalId: 'msg-2',
        author: 'ana',
        kind: 'edit',
        payload: '"just text"',
        occurredAt: 0,
        receivedAt: 1700000002000,
        seq: 2,
        prevHash: 'ab'.repeat(32),
      }),
    ).toBe('09c3749e75475ea4e0f0011cd0d1050360c4704255adf81b1cd66136be579e0e');
  });

  it('is the SHA-256 of the canonical JSON of the hashed fields, for any fields', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(
        fc.record({
          id: text,
          channel: text,
          externalId: text,
          author: fc.option(text),
          kind: text,
          payload: fc.oneof(
            text,
            jsonLike.map((value) => canonicalJson(value)),
          ),
          occurredAt: fc.nat(),
          receivedAt: fc.nat(),
          seq: fc.integer({ min: 1 }),
          prevHash: fc.option(text),
        }),
        (fields) => {
          const expected = createHash('sha256')
            .update(canonicalJson({ ...fields }), 'utf8')
            .digest('hex');
          expect(eventHash(fields)).toBe(expected);
          // Fields a stored event carries besides the hashed ones change nothing.
          expect(eventHash({ ...fields, hash: 'x', searchText: 'y' } as typeof fields)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
