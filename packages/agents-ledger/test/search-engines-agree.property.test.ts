// PostgreSQL finds what SQLite finds (issue 28): texts full of identifiers (versions, paths, host
// names, hyphenated and snake_case ids, CamelCase, unicode words, ASCII and Unicode punctuation) go
// into a ledger on each engine, and every word of every identifier, and every whole identifier, must
// find the same turns on both. Both split a query with core's searchTerms; SQLite's FTS5 (unicode61)
// and PostgreSQL's index (punctuation made spaces before the english parser) must split the text the
// same way.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentsLedger } from '../src/index.ts';
import { type EngineLedger, openEngineLedger, postgresServer } from './builders.ts';

const server = postgresServer();

/** Parts an identifier is made of: digits, mixed, and words both engines stem alike. */
const PART = fc.constantFrom(
  '4471',
  '5',
  '7',
  '44',
  'db3',
  'v16',
  'lh',
  'xq9921',
  'quokka',
  'redis',
  'grafana',
  'consumer',
  'pgloader',
  'snowflake',
  'internal',
  'café',
  '東京',
  'k8s',
  'p7qx2',
  'orion',
);
const SEPARATOR = fc.constantFrom('-', '.', '/', '_', ':', '@', '—', '’', '、', '+', '#');
const IDENTIFIER = fc
  .tuple(fc.array(PART, { minLength: 1, maxLength: 4 }), fc.array(SEPARATOR, { minLength: 3, maxLength: 3 }), fc.boolean())
  .map(([parts, separators, camel]) =>
    camel && parts.length > 1
      ? parts.map((part, index) => (index === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1))).join('')
      : parts.reduce((joined, part, index) => (index === 0 ? part : `${joined}${separators[(index - 1) % 3]}${part}`), ''),
  );
const TEXT = fc
  .array(IDENTIFIER, { minLength: 1, maxLength: 3 })
  .map((identifiers) => `Checked ${identifiers.join(' then ')} (see "notes", line 12).`);

/** The indexes of the texts whose turns a query finds, in one session of `ledger`. */
async function found(ledger: AgentsLedger, sessionId: string, turnIndex: Map<string, number>, query: string) {
  const result = await ledger.search(query, { view: 'raw', sessionId, limit: 100 });
  return result.hits.map((hit) => turnIndex.get(hit.turnId) ?? -1).sort((left, right) => left - right);
}

describe.skipIf(server === null)(
  `search by identifier: PostgreSQL finds the turns SQLite finds${server === null ? ' (skipped: no PostgreSQL server here)' : ''}`,
  () => {
    let sqlite: EngineLedger;
    let postgres: EngineLedger;
    beforeAll(async () => {
      sqlite = await openEngineLedger('sqlite');
      postgres = await openEngineLedger('postgres', {}, 'engines-agree');
    });
    afterAll(async () => {
      await sqlite?.cleanup();
      await postgres?.cleanup();
    });

    it('for every word of an identifier and for the whole identifier', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(TEXT, { minLength: 2, maxLength: 8 }), async (texts) => {
          const sessions = await Promise.all(
            [sqlite, postgres].map(async ({ ledger }) => {
              const session = await ledger.createSession();
              const turns = await ledger.appendTurns(
                session.id,
                texts.map((text) => ({ role: 'user' as const, content: text })),
              );
              return { ledger, sessionId: session.id, index: new Map(turns.map((turn, position) => [turn.id, position])) };
            }),
          );
          const identifiers = texts.flatMap((text) => text.slice('Checked '.length).split(' (see')[0]?.split(' then ') ?? []);
          const queries = [
            ...new Set([...identifiers, ...identifiers.flatMap((identifier) => identifier.split(/[^\p{L}\p{N}]+/u))]),
          ].filter((query) => query.trim() !== '');
          for (const query of queries) {
            const [onSqlite, onPostgres] = (await Promise.all(
              sessions.map(({ ledger, sessionId, index }) => found(ledger, sessionId, index, query)),
            )) as [number[], number[]];
            expect(onPostgres, `query ${JSON.stringify(query)} over ${JSON.stringify(texts)}`).toEqual(onSqlite);
            expect(onSqlite.length, `query ${JSON.stringify(query)} finds its own text`).toBeGreaterThan(0);
          }
        }),
        { numRuns: 25 },
      );
    });
  },
);
