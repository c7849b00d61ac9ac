// PostgreSQL ranks a search the way SQLite does (issue 28): the same conversation in a ledger on
// each engine, and searches of words (every word, any word, stop words among them, a word only a
// few turns hold beside common ones) must return the same turns in the same order with the same
// scores: bm25 as FTS5 computes it, over the same words (PostgreSQL keeps stop words, migration 0006).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineLedger, openEngineLedger, postgresServer } from './builders.ts';

const server = postgresServer();

/** A small conversation: speakers' names in most turns, a few rare words, stop words everywhere. */
const TURNS = [
  'Caroline: I went to the LGBTQ support group yesterday and it was so powerful.',
  'Melanie: That is wonderful, Caroline! What did you talk about at the group?',
  'Caroline: We talked about transgender stories and how the counseling helped me.',
  'Melanie: I painted a sunrise over the lake last week, it was my first painting this year.',
  'Caroline: The painting sounds lovely. Did you paint the lake from memory or from a photo?',
  'Melanie: From a photo my kids took when we went camping at the lake in June.',
  'Caroline: Camping with the kids must be fun. I am researching adoption agencies now.',
  'Melanie: Adoption is a big step! Which agencies are you looking at, Caroline?',
  'Caroline: A few agencies that support LGBTQ parents; the counseling group recommended them.',
  'Melanie: My kids loved the pottery class, we made bowls and a cup with a dog face.',
  'Caroline: Pottery with kids sounds great. I want to become a counselor one day.',
  'Melanie: You would be a great counselor, Caroline. The group is lucky to have you.',
  'Caroline: Thanks Melanie! Redis on db-payments-2 was upgraded to 5.7.44 by the way.',
  'Melanie: Was the upgrade of db-payments-2 smooth? The last one took the whole night.',
];

const QUERIES: Array<{ query: string; anyWord?: boolean }> = [
  { query: 'What did Caroline research?', anyWord: true },
  { query: 'When did Melanie paint a sunrise?', anyWord: true },
  { query: 'Caroline counseling group' },
  { query: 'the lake' },
  { query: 'kids pottery dog cup', anyWord: true },
  { query: 'Which version is redis at db-payments-2?', anyWord: true },
  { query: 'adoption agencies' },
];

interface Ranked {
  turns: number[];
  scores: number[];
}

describe.skipIf(server === null)(
  `search ranking: PostgreSQL ranks as SQLite does${server === null ? ' (skipped: no PostgreSQL server here)' : ''}`,
  () => {
    let sqlite: EngineLedger;
    let postgres: EngineLedger;
    const ranked = new Map<string, Ranked[]>();
    const sessions = new Map<string, string>();
    beforeAll(async () => {
      sqlite = await openEngineLedger('sqlite');
      postgres = await openEngineLedger('postgres', {}, 'rank_alike');
      for (const { ledger, engine } of [sqlite, postgres]) {
        const session = await ledger.createSession();
        const turns = await ledger.appendTurns(
          session.id,
          TURNS.map((content) => ({ role: 'user' as const, content })),
        );
        const index = new Map(turns.map((turn, position) => [turn.id, position]));
        const results: Ranked[] = [];
        for (const { query, anyWord } of QUERIES) {
          const found = await ledger.search(query, { view: 'raw', sessionId: session.id, limit: 50, anyWord });
          results.push({
            turns: found.hits.map((hit) => index.get(hit.turnId) ?? -1),
            scores: found.hits.map((hit) => hit.score),
          });
        }
        ranked.set(engine, results);
        sessions.set(engine, session.id);
      }
    });
    afterAll(async () => {
      await sqlite?.cleanup();
      await postgres?.cleanup();
    });

    it.each(QUERIES.map((query, index) => ({ ...query, index })))('$query: the same turns, order and scores', ({ index }) => {
      const onSqlite = ranked.get('sqlite')?.[index];
      const onPostgres = ranked.get('postgres')?.[index];
      expect(onSqlite?.turns.length).toBeGreaterThan(0);
      expect(onPostgres?.turns).toEqual(onSqlite?.turns);
      onPostgres?.scores.forEach((score, position) => {
        expect(score).toBeCloseTo(onSqlite?.scores[position] ?? Number.NaN, 4);
      });
    });

    // PostgreSQL keeps each kind's average length per row count (search-statistics.ts): turns
    // appended after a search change the average, and the next search must weigh by the new one.
    it('after more turns (longer ones: a new average length), the same scores again', async () => {
      const long = 'Caroline: the counseling group met at the lake again and we talked for hours about adoption, '.repeat(4);
      const scoresOf = async ({ ledger, engine }: EngineLedger) => {
        const sessionId = sessions.get(engine) ?? '';
        await ledger.appendTurns(sessionId, [
          { role: 'user', content: long },
          { role: 'assistant', content: long },
        ]);
        const found = await ledger.search('Caroline counseling group', { view: 'raw', sessionId, limit: 50 });
        return found.hits.map((hit) => hit.score);
      };
      const [onSqlite, onPostgres] = [await scoresOf(sqlite), await scoresOf(postgres)];
      expect(onSqlite.length).toBeGreaterThan(1);
      expect(onPostgres).toHaveLength(onSqlite.length);
      onPostgres.forEach((score, position) => {
        expect(score).toBeCloseTo(onSqlite[position] ?? Number.NaN, 4);
      });
    });
  },
);
