// Hostile query text through ledger.search: in the default mode every string is words and never
// throws; in advanced mode a string is either a valid FTS5 query or a SearchSyntaxError, never a
// raw driver error. Searching writes nothing.

import { createHash } from 'node:crypto';
import { LedgerError, SearchSyntaxError } from '@agent-ledger/core';
import { HOSTILE_QUERIES } from '@agent-ledger/core/testing';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentsLedger, TurnSearchOptions, TurnSearchResult } from '../src/index.ts';
import { storeOf } from '../src/testing.ts';
import { openTempLedger, prose, SMALL_SETTINGS, type TempLedger } from './builders.ts';

let temp: TempLedger;
let ledger: AgentsLedger;
let sourceId: string;
let forkId: string;
let before: string;

/** Row counts, schema and a digest of every stored turn and session, read as another program would. */
function snapshot(target: AgentsLedger): string {
  const sqlite = openRawSqlite(storeOf(target).location, { readonly: true });
  try {
    return snapshotOf(sqlite);
  } finally {
    sqlite.close();
  }
}

function snapshotOf(sqlite: ReturnType<typeof openRawSqlite>): string {
  const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  const digest = (sql: string) =>
    createHash('sha256')
      .update(JSON.stringify(sqlite.prepare(sql).all()))
      .digest('hex');
  return JSON.stringify({
    turns: count('agent_turns'),
    sessions: count('agent_sessions'),
    events: count('events'),
    links: count('turn_events'),
    schema: digest('SELECT type, name, sql FROM sqlite_master ORDER BY name'),
    turnRows: digest('SELECT * FROM agent_turns ORDER BY rowid'),
    sessionRows: digest('SELECT * FROM agent_sessions ORDER BY id'),
    index: digest('SELECT * FROM turns_fts_docsize ORDER BY id'),
  });
}

/** Text worth matching: operators, quotes and unicode inside real turns. */
const SPICE = [
  'The query was "NEAR(a b)" and AND OR NOT col:term -term +x {a b} [x] ledger* ^start.',
  "Someone typed '; DROP TABLE agent_turns; -- into the box, and 100% of the _ matched.",
  'Unicode: 🦓 שלום עולם مرحبا naïve e\u0301 漢字 ＡＢＣ 0x1F 42 3.14159.',
  'Backslash \\ and newline\nand tab\there.',
];

beforeAll(async () => {
  temp = openTempLedger();
  ledger = temp.ledger;
  const source = await ledger.createSession({ settings: SMALL_SETTINGS });
  sourceId = source.id;
  let forkPoint = '';
  for (let index = 0; index < 40; index += 1) {
    const turn = await ledger.appendTurn(source.id, {
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `${SPICE[index % SPICE.length]} ${prose(30, index + 1)}`,
      metadata: { author: index % 2 === 0 ? 'dana' : 'eli' },
    });
    if (index === 25) forkPoint = turn.id;
    if (await ledger.shouldCompact(source.id)) await ledger.compact(source.id);
  }
  const fork = await ledger.forkFrom(forkPoint);
  forkId = fork.session.id;
  for (let index = 0; index < 20; index += 1) {
    await ledger.appendTurn(forkId, { role: index % 2 === 0 ? 'user' : 'assistant', content: prose(40, 900 + index) });
    if (await ledger.shouldCompact(forkId)) await ledger.compact(forkId);
  }
  expect(await ledger.doctor()).toEqual([]);
  before = snapshot(ledger);
});

afterAll(() => temp?.cleanup());

function expectWellFormed(result: TurnSearchResult, what: string): void {
  expect(Array.isArray(result.hits), what).toBe(true);
  expect(result.nextCursor === null || typeof result.nextCursor === 'string', what).toBe(true);
  for (const hit of result.hits) {
    expect(typeof hit.turnId, what).toBe('string');
    expect(typeof hit.snippet, what).toBe('string');
    expect(Number.isFinite(hit.score), what).toBe(true);
  }
}

const VIEWS: Array<[string, () => TurnSearchOptions]> = [
  ['resolved', () => ({})],
  ['raw', () => ({ view: 'raw' })],
  ['session+forks', () => ({ sessionId: sourceId, includeForks: true })],
  ['fork raw filtered', () => ({ view: 'raw', sessionId: forkId, role: 'user', limit: 3 })],
  ['author', () => ({ author: 'dana', since: 0, until: Number.MAX_SAFE_INTEGER })],
];

describe('hostile query text', () => {
  it('has at least 60 strings', () => {
    expect(HOSTILE_QUERIES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(HOSTILE_QUERIES).size).toBe(HOSTILE_QUERIES.length);
  });

  it('never throws in the default mode, in any view', async () => {
    for (const query of HOSTILE_QUERIES) {
      for (const [name, options] of VIEWS) {
        const what = `${name}: ${JSON.stringify(query.slice(0, 60))}`;
        const result = await ledger.search(query, options()).catch((error: unknown) => {
          throw new Error(`${what} threw ${String(error)}`);
        });
        expectWellFormed(result, what);
      }
    }
  });

  it('finds the words around the syntax, as words', async () => {
    // Operators in plain text are words: NOT does not exclude, NEAR is the word "near".
    const not = await ledger.search('NOT ledger', { view: 'raw', limit: 200 });
    expect(not.hits.length).toBeGreaterThan(0);
    expect(not.hits.every((hit) => /\[not\]/i.test(hit.snippet) || /\[ledger\]/i.test(hit.snippet))).toBe(true);
    const drop = await ledger.search("'; DROP TABLE agent_turns; --", { view: 'raw', limit: 200 });
    expect(drop.hits.length).toBeGreaterThan(0);
    expect(drop.hits[0]?.snippet).toMatch(/\[DROP\]/);
    const zebra = await ledger.search('ledger 🦓 query', { view: 'raw', limit: 200 });
    expect(zebra.hits.length).toBeGreaterThan(0);
    const hebrew = await ledger.search('שלום', { view: 'raw', limit: 200 });
    expect(hebrew.hits.length).toBeGreaterThan(0);
    expect(hebrew.hits[0]?.snippet).toContain('[שלום]');
  });

  it('in advanced mode returns results or throws SearchSyntaxError, never a driver error', async () => {
    let syntaxErrors = 0;
    let answered = 0;
    for (const query of HOSTILE_QUERIES) {
      for (const [name, options] of VIEWS.slice(0, 3)) {
        const what = `advanced ${name}: ${JSON.stringify(query.slice(0, 60))}`;
        try {
          expectWellFormed(await ledger.search(query, { ...options(), advanced: true }), what);
          answered += 1;
        } catch (error) {
          expect(error, what).toBeInstanceOf(SearchSyntaxError);
          expect(LedgerError.isInstance(error), what).toBe(true);
          expect((error as SearchSyntaxError).code, what).toBe('SEARCH_SYNTAX');
          expect((error as Error).name, what).not.toBe('SqliteError');
          expect((error as SearchSyntaxError).query, what).toBe(query);
          syntaxErrors += 1;
        }
      }
    }
    // Both outcomes occur: the list holds valid and invalid FTS5.
    expect(syntaxErrors).toBeGreaterThan(10);
    expect(answered).toBeGreaterThan(10);
  });

  it('advanced mode really is FTS5 syntax', async () => {
    const phrase = await ledger.search('"drop table"', { advanced: true, view: 'raw', limit: 200 });
    expect(phrase.hits.length).toBeGreaterThan(0);
    const excluded = await ledger.search('drop NOT table', { advanced: true, view: 'raw', limit: 200 });
    expect(excluded.hits).toEqual([]);
    const prefix = await ledger.search('ledg*', { advanced: true, view: 'raw', limit: 200 });
    const exact = await ledger.search('ledger', { view: 'raw', limit: 200 });
    expect(prefix.hits.length).toBeGreaterThanOrEqual(exact.hits.length);
    await expect(ledger.search('"unterminated', { advanced: true })).rejects.toBeInstanceOf(SearchSyntaxError);
  });

  it('leaves every table as it was, and doctor finds nothing', async () => {
    expect(snapshot(ledger)).toBe(before);
    expect(await ledger.doctor()).toEqual([]);
    // A second connection sees the same.
    const other = temp.reopen();
    expect(snapshot(other)).toBe(before);
    expect(await other.doctor()).toEqual([]);
  });
});

describe('property: arbitrary text', () => {
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc
      .array(
        fc.constantFrom(
          '"',
          "'",
          '(',
          ')',
          '*',
          '^',
          ':',
          '-',
          '+',
          'AND',
          'OR',
          'NOT',
          'NEAR',
          '/',
          '\\',
          ' ',
          'ledger',
          '\u0000',
          '{',
          '}',
        ),
        { maxLength: 20 },
      )
      .map((parts) => parts.join('')),
  );

  it('never throws in the default mode', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.boolean(), async (query, raw) => {
        const result = await ledger.search(query, { view: raw ? 'raw' : 'resolved', limit: 5 });
        expectWellFormed(result, JSON.stringify(query));
      }),
      { numRuns: 300 },
    );
  });

  it('in advanced mode either answers or throws SearchSyntaxError', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (query) => {
        try {
          expectWellFormed(await ledger.search(query, { advanced: true, limit: 5 }), JSON.stringify(query));
        } catch (error) {
          if (!SearchSyntaxError.isInstance(error)) throw error;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('finds a turn by any one word of its own text (letters and digits)', async () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9]{2,12}$/);
    const local = openTempLedger();
    try {
      const session = await local.ledger.createSession({});
      await fc.assert(
        fc.asyncProperty(word, async (value) => {
          const turn = await local.ledger.appendTurn(session.id, { role: 'user', content: `before ${value} after` });
          const result = await local.ledger.search(value, { view: 'raw', limit: 200 });
          expect(result.hits.map((hit) => hit.turnId)).toContain(turn.id);
        }),
        { numRuns: 60 },
      );
      expect(await local.ledger.doctor()).toEqual([]);
    } finally {
      local.cleanup();
    }
  });
});

describe('compatibility forms (NFKC on both the index and the query)', () => {
  it('finds a turn by the exact text it holds, whatever its compatibility forms', async () => {
    const local = openTempLedger();
    try {
      const session = await local.ledger.createSession({});
      for (const word of ['ＡＢＣ', 'ﬁle', 'x²y', 'ﾃｽﾄ', '１２３']) {
        const turn = await local.ledger.appendTurn(session.id, { role: 'user', content: `before ${word} after` });
        const result = await local.ledger.search(word, { view: 'raw' });
        expect(
          result.hits.map((hit) => hit.turnId),
          word,
        ).toContain(turn.id);
      }
    } finally {
      local.cleanup();
    }
  });

  it('finds a compatibility form by its plain form, in both modes', async () => {
    const local = openTempLedger();
    try {
      const session = await local.ledger.createSession({});
      for (const [stored, typed] of [
        ['ＡＢＣ', 'ABC'],
        ['ﬁle', 'file'],
        ['１２３', '123'],
      ] as const) {
        const turn = await local.ledger.appendTurn(session.id, { role: 'user', content: `before ${stored} after` });
        for (const advanced of [false, true]) {
          const result = await local.ledger.search(typed, { view: 'raw', advanced });
          expect(
            result.hits.map((hit) => hit.turnId),
            `${typed} (advanced: ${advanced})`,
          ).toContain(turn.id);
        }
      }
    } finally {
      local.cleanup();
    }
  });
});
