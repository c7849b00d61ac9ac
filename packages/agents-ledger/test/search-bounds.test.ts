// Search bounded at any size (issue 28), on both engines through the public API: a word more than
// 1,000 rows hold is common, and a search ranks at most the 1,000 newest matches. A common word
// returns the best of the newest thousand; paging walks exactly those, each once; a rarer word
// among common ones finds its turn, and an any-word search is not flooded by the common one; a
// search with few matches still pages through all of them; the resolved view still reports a
// summarized match as its compaction, once; events are bounded the same way.

import { type EventsLedger, openEventsLedger } from '@agent-ledger/events-ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentsLedger, TurnHit, TurnSearchOptions } from '../src/index.ts';
import { type EngineLedger, engines, openEngineLedger } from './builders.ts';

/** Above both bounds (1,000 rows): every turn holds the common word. */
const TURNS = 1300;
/** Turns before this are outside the newest 1,000. */
const OLDEST_RANKED = TURNS - 1000;
const BEST_NEW = 1200;
const RARE_OLD = 20;
const FEW = new Set([5, 250, 400, 777, 901, 1003, 1111, 1299]);

/** What turn (or event) `index` says: the common word always, planted words where the tests look. */
function text(index: number): string {
  const few = FEW.has(index) ? ' quokka' : '';
  if (index === BEST_NEW) return 'gecko gecko lemur';
  if (index === RARE_OLD) return 'okapi gecko in a long sentence about the river bank and the trail';
  if (index < OLDEST_RANKED && index % 10 === 0) return `gecko gecko gecko${few}`;
  return `gecko seen near the shed at dusk, number ${index}${few}`;
}

/** Every hit of a search, page by page (a search that never ends fails). */
async function allHits(ledger: AgentsLedger, query: string, options: TurnSearchOptions): Promise<TurnHit[]> {
  const hits: TurnHit[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages += 1) {
    const page = await ledger.search(query, { ...options, cursor });
    hits.push(...page.hits);
    if (page.nextCursor === null) return hits;
    cursor = page.nextCursor;
  }
  throw new Error('paging never ended');
}

for (const { engine, title, skip } of engines()) {
  describe.skipIf(skip)(`search bounded at any size ${title}`, () => {
    let opened: EngineLedger;
    let ledger: AgentsLedger;
    let events: EventsLedger;
    let sessionId: string;
    const indexOf = new Map<string, number>();
    const indexes = (hits: readonly TurnHit[]) => hits.map((hit) => indexOf.get(hit.turnId) ?? -1);

    beforeAll(async () => {
      opened = await openEngineLedger(engine, {}, 'bounds');
      ledger = opened.ledger;
      const session = await ledger.createSession();
      sessionId = session.id;
      const turns = await ledger.appendTurns(
        session.id,
        Array.from({ length: TURNS }, (_, index) => ({ role: 'user' as const, content: text(index) })),
      );
      for (const [index, turn] of turns.entries()) indexOf.set(turn.id, index);
      let clock = 1_800_000_000_000;
      events = openEventsLedger(opened.location, {
        now: () => {
          clock += 1000;
          return clock;
        },
      });
      // Batches of 100: each batch shares its receivedAt, and the later batch is the newer one.
      for (let from = 0; from < TURNS; from += 100) {
        await events.appendBatch(
          Array.from({ length: 100 }, (_, offset) => ({
            channel: 'c',
            externalId: `x${String(from + offset).padStart(5, '0')}`,
            payload: { text: text(from + offset) },
          })),
        );
      }
    }, 120_000);
    afterAll(async () => {
      await events?.close();
      await opened?.cleanup();
    });

    it('a common word returns the best of the newest 1,000 matches, not the best of all', async () => {
      const { hits } = await ledger.search('gecko', { view: 'raw', limit: 20 });
      expect(hits).toHaveLength(20);
      // The older turns that say it three times would rank first over every match.
      expect(indexes(hits).every((index) => index >= OLDEST_RANKED)).toBe(true);
      expect(indexes(hits)[0]).toBe(BEST_NEW);
      for (const hit of hits) expect(hit.snippet).toContain('[gecko]');
    });

    it('paging a common word walks exactly the newest 1,000 matches, each once', async () => {
      const hits = await allHits(ledger, 'gecko', { view: 'raw', limit: 200 });
      const found = indexes(hits);
      expect(new Set(found).size).toBe(found.length);
      expect(found.sort((left, right) => left - right)).toEqual(Array.from({ length: 1000 }, (_, at) => OLDEST_RANKED + at));
    });

    it('several common words: the newest 1,000 rows holding every one of them, each once', async () => {
      const holding = Array.from({ length: TURNS }, (_, index) => index).filter((index) => /gecko.*shed/.test(text(index)));
      expect(holding.length).toBeGreaterThan(1000);
      const hits = await allHits(ledger, 'gecko shed', { view: 'raw', limit: 200 });
      expect(indexes(hits).sort((left, right) => left - right)).toEqual(holding.slice(-1000));
    });

    it('a rare word among common ones finds its turn, and an any-word search is not flooded by the common word', async () => {
      expect(indexes((await ledger.search('okapi gecko', { view: 'raw' })).hits)).toEqual([RARE_OLD]);
      // No turn holds all three: any word, but the common one is left out of the match.
      const any = await allHits(ledger, 'okapi lemur gecko', { view: 'raw', limit: 5 });
      expect(indexes(any).sort((left, right) => left - right)).toEqual([RARE_OLD, BEST_NEW]);
      const anyWord = await allHits(ledger, 'gecko okapi', { view: 'raw', limit: 5, anyWord: true });
      expect(indexes(anyWord)).toEqual([RARE_OLD]);
    });

    it('rare words that match nothing here leave the common words to find the newest matches, not nothing', async () => {
      // "zebra" is in no turn; "okapi" is, but in another session than the one searched.
      const absent = await ledger.search('zebra gecko', { view: 'raw', limit: 5, anyWord: true });
      expect(indexes(absent.hits)[0]).toBe(BEST_NEW);
      expect(indexes(absent.hits).every((index) => index >= OLDEST_RANKED)).toBe(true);
      const elsewhere = await ledger.createSession();
      await ledger.appendTurns(elsewhere.id, [{ role: 'user', content: 'a walrus and an okapi' }]);
      const scoped = await allHits(ledger, 'walrus shed gecko', { view: 'raw', limit: 200, anyWord: true, sessionId });
      expect(scoped).toHaveLength(1000);
      expect(indexes(scoped).every((index) => index >= OLDEST_RANKED)).toBe(true);
      // Where a rare word does match, the common words still stay out.
      expect(indexes((await ledger.search('walrus gecko', { view: 'raw', anyWord: true })).hits)).toEqual([-1]);
    });

    it('a search with few matches pages through every one of them once, old or new', async () => {
      const hits = await allHits(ledger, 'quokka', { view: 'raw', limit: 3 });
      expect(indexes(hits).sort((left, right) => left - right)).toEqual([...FEW].sort((left, right) => left - right));
      const scoped = await allHits(ledger, 'quokka gecko', { sessionId, limit: 3 });
      expect(new Set(indexes(scoped))).toEqual(FEW);
      expect(scoped).toHaveLength(FEW.size);
    });

    it('the resolved view of a bounded search still reports every summarized match as its compaction, once', async () => {
      const session = await ledger.createSession({
        settings: { contextWindow: 100_000, reserveTokens: 1_000, keepRecentTokens: 300 },
      });
      const turns = await ledger.appendTurns(
        session.id,
        Array.from({ length: 1100 }, (_, index) => ({ role: 'user' as const, content: `salamander basks, number ${index}` })),
      );
      const compaction = await ledger.compact(session.id, { trigger: 'manual' });
      const through = turns.findIndex((turn) => turn.id === compaction.summarizedThroughTurnId);
      const kept = turns.slice(through + 1).map((turn) => turn.id);
      expect(through).toBeGreaterThan(0);
      const hits = await allHits(ledger, 'salamander', { limit: 50 });
      const ids = hits.map((hit) => hit.turnId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => id === compaction.id)).toHaveLength(1);
      expect(new Set(ids)).toEqual(new Set([compaction.id, ...kept]));
      for (const hit of hits) if (hit.turnId !== compaction.id) expect(hit.via).toBeNull();
    });

    it('a common word in turns and in a newer summary: the newest 1,000 of both kinds together', async () => {
      // Turns from an earlier time (as an import brings them), then a compaction made now: the
      // summary is the newest row, and the 999 newest turns come after it.
      const session = await ledger.createSession({
        settings: { contextWindow: 100_000, reserveTokens: 1_000, keepRecentTokens: 300 },
      });
      const turns = await ledger.appendTurns(
        session.id,
        Array.from({ length: 1100 }, (_, index) => ({
          role: 'user' as const,
          content: `newt crossing, number ${index}`,
          timestamp: 1_700_000_000_000 + index * 1000,
        })),
      );
      const compaction = await ledger.compact(session.id, { trigger: 'manual' });
      expect(compaction.summary).toContain('newt');
      const hits = await allHits(ledger, 'newt', { view: 'raw', limit: 200, sessionId: session.id });
      const ids = hits.map((hit) => hit.turnId);
      expect(new Set(ids)).toEqual(new Set([compaction.id, ...turns.slice(-999).map((turn) => turn.id)]));
      expect(ids).toHaveLength(1000);
      const summaries = await allHits(ledger, 'newt', { view: 'raw', limit: 200, sessionId: session.id, turnType: 'compaction' });
      expect(summaries.map((hit) => hit.turnId)).toEqual([compaction.id]);
    });

    it('events: a common word returns only the newest 1,000, and a rare one among common ones finds its event', async () => {
      const found = async (query: string, options: { limit: number; cursor?: string }) => {
        const numbers: number[] = [];
        let cursor: string | undefined;
        do {
          const page = await events.search(query, { ...options, cursor });
          numbers.push(...page.hits.map((hit) => Number(hit.event.externalId.slice(1))));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        return numbers;
      };
      const common = await found('gecko', { limit: 200 });
      expect(common.sort((left, right) => left - right)).toEqual(Array.from({ length: 1000 }, (_, at) => OLDEST_RANKED + at));
      const best = (await events.search('gecko', { limit: 2 })).hits;
      expect(best[0]?.event.externalId).toBe(`x0${BEST_NEW}`);
      for (const hit of best) expect(hit.snippet).toContain('[gecko]');
      expect(await found('okapi lemur gecko', { limit: 5 })).toHaveLength(2);
      expect(await found('quokka', { limit: 3 })).toHaveLength(FEW.size);
    });
  });
}
