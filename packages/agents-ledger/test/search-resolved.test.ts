// Full-text search over turns on a real SQLite file: the resolved view (hits inside summarized
// turns surface as the canonical compaction, with `via`) against the raw view, session lines and
// forks, filters, and keyset pagination.

import { type CompactionTurn, contentText, InvalidInputError, LedgerError, type Turn } from '@agent-ledger/core';
import type { SummarizeInput, SummarizeResult, Summarizer } from '@agent-ledger/summarizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentsLedger, AppendTurnInput, TurnHit, TurnSearchOptions } from '../src/index.ts';
import { openTempLedger, prose, SMALL_SETTINGS, sessionHistory, type TempLedger } from './builders.ts';

const BASE_TIME = 1_710_000_000_000;
const MINUTE = 60_000;
const SOURCE_TURNS = 60;
const FORK_POINT = 30;
const FORK_TURNS = 40;

/** A summarizer whose summaries hold none of the turns' words, only its own marker word. */
function markerSummarizer(marker: string): Summarizer {
  let calls = 0;
  return {
    name: 'marker',
    async summarize(input: SummarizeInput): Promise<SummarizeResult> {
      calls += 1;
      return {
        text: `The ${marker} recap ${calls} stands in for ${input.turns.length} turns.`,
        usage: { inputTokens: 1, outputTokens: 1 },
      };
    },
  };
}

interface Planned {
  index: number;
  role: 'user' | 'assistant';
  timestamp: number;
  author: string;
  words: string[];
}

/** Distinctive words (none is in the prose vocabulary) and where they go in the source session. */
function sourcePlan(index: number): Planned {
  const words: string[] = [];
  if (index === 2) words.push('zebrafish-42');
  if (index === 4 || index === 6 || index === 8) words.push('okapi');
  if (index >= 10 && index < 20) words.push('kiwi');
  if (index >= 20 && index < 45) words.push(`lemur ${'lemur '.repeat(index % 4)}`.trim());
  if (index === 40 || index === 50) words.push('ferret');
  // Spans the last cut: some of these turns are summarized, the newest are not.
  if (index >= 36) words.push(`gecko ${'gecko '.repeat(index % 5)}`.trim());
  if (index === SOURCE_TURNS - 1) words.push('narwhal');
  return {
    index,
    role: index % 2 === 0 ? 'user' : 'assistant',
    timestamp: BASE_TIME + index * MINUTE,
    author: index % 3 === 0 ? 'dana' : 'eli',
    words,
  };
}

function inputFor(plan: Planned, seed: number): AppendTurnInput {
  const lead = plan.words.length > 0 ? `Note ${plan.words.join(' ')} here. ` : '';
  return {
    role: plan.role,
    content: `${lead}${prose(40, seed)}`,
    timestamp: plan.timestamp,
    metadata: { author: plan.author },
  };
}

interface Scenario {
  temp: TempLedger;
  ledger: AgentsLedger;
  sourceId: string;
  forkId: string;
  /** Source turn ids by plan index. */
  ids: string[];
  plans: Planned[];
  forkIds: string[];
  sourceCompactions: CompactionTurn[];
  forkCompactions: CompactionTurn[];
}

async function appendAndCompact(ledger: AgentsLedger, sessionId: string, input: AppendTurnInput): Promise<string> {
  const turn = await ledger.appendTurn(sessionId, input);
  if (await ledger.shouldCompact(sessionId)) await ledger.compact(sessionId);
  return turn.id;
}

let scenario: Scenario;

beforeAll(async () => {
  const temp = openTempLedger({ summarizer: markerSummarizer('quokka') });
  const { ledger } = temp;
  const source = await ledger.createSession({ settings: SMALL_SETTINGS });
  const ids: string[] = [];
  const plans: Planned[] = [];
  for (let index = 0; index < SOURCE_TURNS; index += 1) {
    const plan = sourcePlan(index);
    plans.push(plan);
    // Never compact after the last turn: it must stay raw.
    if (index === SOURCE_TURNS - 1) ids.push((await ledger.appendTurn(source.id, inputFor(plan, index + 1))).id);
    else ids.push(await appendAndCompact(ledger, source.id, inputFor(plan, index + 1)));
  }
  const fork = await ledger.forkFrom(ids[FORK_POINT] as string);
  const forkIds: string[] = [];
  for (let index = 0; index < FORK_TURNS; index += 1) {
    const words = index % 10 === 5 ? 'ferret wombat' : 'wombat';
    forkIds.push(
      await appendAndCompact(ledger, fork.session.id, {
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `Fork ${words} here. ${prose(40, 500 + index)}`,
        timestamp: BASE_TIME + (SOURCE_TURNS + index) * MINUTE,
      }),
    );
  }
  const compactionsOf = (turns: Turn[], sessionId: string) =>
    turns.filter((turn): turn is CompactionTurn => turn.turnType === 'compaction' && turn.sessionId === sessionId);
  scenario = {
    temp,
    ledger,
    sourceId: source.id,
    forkId: fork.session.id,
    ids,
    plans,
    forkIds,
    sourceCompactions: compactionsOf(await sessionHistory(ledger, source.id), source.id),
    forkCompactions: compactionsOf(await sessionHistory(ledger, fork.session.id), fork.session.id),
  };
});

afterAll(() => scenario?.temp.cleanup());

function id(index: number): string {
  const value = scenario.ids[index];
  if (value === undefined) throw new Error(`no source turn ${index}`);
  return value;
}

/** Every hit of a search, following nextCursor. */
async function allPages(query: string, options: TurnSearchOptions): Promise<{ hits: TurnHit[]; pages: number }> {
  const hits: TurnHit[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await scenario.ledger.search(query, { ...options, cursor });
    pages += 1;
    expect(page.hits.length).toBeLessThanOrEqual(options.limit ?? 20);
    hits.push(...page.hits);
    if (page.nextCursor === null) return { hits, pages };
    expect(page.hits.length, 'a page with a nextCursor is full').toBe(options.limit ?? 20);
    cursor = page.nextCursor;
    if (pages > 200) throw new Error('pagination does not end');
  }
}

function planIndexes(predicate: (plan: Planned) => boolean): string[] {
  return scenario.plans.filter(predicate).map((plan) => id(plan.index));
}

describe('the scenario itself', () => {
  it('has several compactions on the source line and its own on the fork', () => {
    expect(scenario.sourceCompactions.length).toBeGreaterThanOrEqual(3);
    expect(scenario.forkCompactions.length).toBeGreaterThanOrEqual(1);
    // The early turns were summarized; the last one was not.
    expect(scenario.sourceCompactions[0]?.summarizedThroughTurnId).toBeDefined();
  });
});

describe('resolved vs raw view', () => {
  it('every snippet is cut from the turn that matched (via, or the hit itself)', async () => {
    const { ledger } = scenario;
    for (const view of ['resolved', 'raw'] as const) {
      const { hits } = await ledger.search('the', { view, limit: 50 });
      expect(hits.length, view).toBeGreaterThan(3);
      for (const hit of hits) {
        const source = await ledger.getTurn(hit.via ?? hit.turnId);
        const text = (source.turnType === 'compaction' ? source.summary : contentText(source.content)).replace(/\s+/g, ' ');
        const fragments = hit.snippet
          .replace(/[[\]]/g, '')
          .split('…')
          .map((part) => part.trim())
          .filter((part) => part.length > 0);
        for (const fragment of fragments) expect(text, `${view} ${hit.turnId} via ${hit.via}`).toContain(fragment);
      }
    }
  });

  it('a word only in a summarized turn resolves to the canonical compaction, via that turn', async () => {
    const { ledger, sourceId, sourceCompactions } = scenario;
    const newest = sourceCompactions.at(-1) as CompactionTurn;
    const canonical = await ledger.canon(id(2));
    expect(canonical?.id).toBe(newest.id);
    // The newest compaction on the line is what the session head's context starts from.
    const head = (await ledger.getSession(sourceId)).headTurnId as string;
    expect((await ledger.findLatestCompaction(head))?.id).toBe(newest.id);

    const resolved = await ledger.search('zebrafish-42');
    expect(resolved.hits).toHaveLength(1);
    expect(resolved.hits[0]).toMatchObject({
      turnId: newest.id,
      sessionId: sourceId,
      turnType: 'compaction',
      via: id(2),
      role: null,
      timestamp: newest.timestamp,
    });
    expect(resolved.hits[0]?.snippet).toContain('[zebrafish]');
    expect(resolved.nextCursor).toBeNull();

    const raw = await ledger.search('zebrafish-42', { view: 'raw' });
    expect(raw.hits).toHaveLength(1);
    expect(raw.hits[0]).toMatchObject({
      turnId: id(2),
      sessionId: sourceId,
      turnType: 'normal',
      via: null,
      role: 'user',
      timestamp: BASE_TIME + 2 * MINUTE,
    });
    expect((await ledger.getTurn(id(2))).turnType).toBe('normal');
  });

  it('a word in a recent, unsummarized turn resolves to the turn itself', async () => {
    const { ledger } = scenario;
    const last = id(SOURCE_TURNS - 1);
    expect(await ledger.canon(last)).toBeNull();
    for (const view of ['resolved', 'raw'] as const) {
      const result = await ledger.search('narwhal', { view });
      expect(result.hits.map((hit) => [hit.turnId, hit.via, hit.turnType])).toEqual([[last, null, 'normal']]);
    }
  });

  it('several matches summarized by the same compaction collapse to one resolved hit', async () => {
    const { ledger, sourceCompactions } = scenario;
    const okapi = [id(4), id(6), id(8)];
    const raw = await ledger.search('okapi', { view: 'raw' });
    expect(raw.hits.map((hit) => hit.turnId).sort()).toEqual([...okapi].sort());
    expect(raw.hits.every((hit) => hit.via === null)).toBe(true);
    // The raw page is ranked: scores never decrease.
    const scores = raw.hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((left, right) => left - right));

    const resolved = await ledger.search('okapi');
    expect(resolved.hits).toHaveLength(1);
    const hit = resolved.hits[0] as TurnHit;
    expect(hit.turnId).toBe(sourceCompactions.at(-1)?.id);
    // `via` is the best-ranked matching turn.
    expect(hit.via).toBe(raw.hits[0]?.turnId);
    for (const turnId of okapi) expect((await ledger.canon(turnId))?.id).toBe(hit.turnId);
  });

  it('every resolved hit is canon(via) when via is set, and an unsummarized turn otherwise', async () => {
    const { ledger } = scenario;
    for (const [word, count] of [
      ['lemur', 25],
      ['gecko', SOURCE_TURNS - 36],
    ] as const) {
      const resolved = await ledger.search(word, { limit: 200 });
      const raw = await ledger.search(word, { view: 'raw', limit: 200 });
      expect(raw.hits).toHaveLength(count);
      for (const hit of resolved.hits) {
        if (hit.via === null) {
          expect(await ledger.canon(hit.turnId)).toBeNull();
          expect(hit.turnType).toBe('normal');
        } else {
          expect((await ledger.canon(hit.via))?.id).toBe(hit.turnId);
          expect(hit.turnType).toBe('compaction');
        }
      }
      // Resolving each raw hit by hand and dropping repeats gives the resolved list, in rank order.
      const expected: string[] = [];
      for (const hit of raw.hits) {
        const turnId = (await ledger.canon(hit.turnId))?.id ?? hit.turnId;
        if (!expected.includes(turnId)) expected.push(turnId);
      }
      expect(resolved.hits.map((hit) => hit.turnId)).toEqual(expected);
      expect(new Set(resolved.hits.map((hit) => hit.turnId)).size).toBe(resolved.hits.length);
    }
    // gecko spans the last cut: one compaction plus the raw turns after it.
    const gecko = await ledger.search('gecko', { limit: 200 });
    expect(gecko.hits.filter((hit) => hit.turnType === 'compaction')).toHaveLength(1);
    expect(gecko.hits.filter((hit) => hit.via === null).length).toBeGreaterThan(1);
  });

  it('compaction summaries are searchable, and turnType compaction finds only them', async () => {
    const { ledger, sourceCompactions, forkCompactions } = scenario;
    const all = [...sourceCompactions, ...forkCompactions].map((turn) => turn.id).sort();
    const raw = await ledger.search('quokka', { view: 'raw', turnType: 'compaction', limit: 200 });
    expect(raw.hits.map((hit) => hit.turnId).sort()).toEqual(all);
    expect(raw.hits.every((hit) => hit.turnType === 'compaction' && hit.role === null)).toBe(true);
    // No normal turn holds the summaries' marker word.
    expect((await ledger.search('quokka', { view: 'raw', turnType: 'normal' })).hits).toEqual([]);
    // Resolved: a folded-in compaction stands behind the newest one of its line.
    const resolved = await ledger.search('quokka', { turnType: 'compaction', limit: 200 });
    const newestIds = [sourceCompactions.at(-1)?.id, forkCompactions.at(-1)?.id];
    expect(resolved.hits.map((hit) => hit.turnId).sort()).toEqual([...newestIds].sort());
    for (const hit of resolved.hits) if (hit.via !== null) expect(all).toContain(hit.via);
  });

  it('falls back to any word only when no turn holds every word', async () => {
    const { ledger } = scenario;
    const both = await ledger.search('zebrafish narwhal', { view: 'raw' });
    expect(both.hits.map((hit) => hit.turnId).sort()).toEqual([id(2), id(SOURCE_TURNS - 1)].sort());
    // "okapi note" is in every okapi turn: only those, not every turn with "note".
    const all = await ledger.search('okapi note', { view: 'raw', limit: 200 });
    expect(all.hits.map((hit) => hit.turnId).sort()).toEqual([id(4), id(6), id(8)].sort());
  });
});

describe('session lines and forks', () => {
  it('sessionId limits to the line: inherited turns before the fork point, not the source’s turns after it', async () => {
    const { ledger, forkId, sourceId, forkIds } = scenario;
    const forkFerrets = forkIds.filter((_, index) => index % 10 === 5).sort();
    const sourceFerrets = [id(40), id(50)].sort();

    const onFork = await ledger.search('ferret', { view: 'raw', sessionId: forkId, limit: 200 });
    expect(onFork.hits.map((hit) => hit.turnId).sort()).toEqual(forkFerrets);
    const inherited = await ledger.search('zebrafish', { view: 'raw', sessionId: forkId });
    expect(inherited.hits.map((hit) => hit.turnId)).toEqual([id(2)]);
    // Turns 20..30 are on the fork's line, 31..44 are not.
    const lemurs = await ledger.search('lemur', { view: 'raw', sessionId: forkId, limit: 200 });
    expect(lemurs.hits.map((hit) => hit.turnId).sort()).toEqual(
      planIndexes((plan) => plan.index >= 20 && plan.index <= FORK_POINT).sort(),
    );

    const onSource = await ledger.search('ferret', { view: 'raw', sessionId: sourceId, limit: 200 });
    expect(onSource.hits.map((hit) => hit.turnId).sort()).toEqual(sourceFerrets);
    const wombatOnSource = await ledger.search('wombat', { view: 'raw', sessionId: sourceId });
    expect(wombatOnSource.hits).toEqual([]);
  });

  it('includeForks adds the forks’ own turns', async () => {
    const { ledger, sourceId, forkId, forkIds } = scenario;
    const withForks = await ledger.search('ferret', { view: 'raw', sessionId: sourceId, includeForks: true, limit: 200 });
    const expected = [id(40), id(50), ...forkIds.filter((_, index) => index % 10 === 5)].sort();
    expect(withForks.hits.map((hit) => hit.turnId).sort()).toEqual(expected);
    const wombats = await ledger.search('wombat', { view: 'raw', sessionId: sourceId, includeForks: true, limit: 200 });
    expect(wombats.hits.map((hit) => hit.turnId).sort()).toEqual([...forkIds].sort());
    expect(wombats.hits.every((hit) => hit.sessionId === forkId)).toBe(true);
    // A fork has no forks: includeForks changes nothing for it.
    const forkOnly = await ledger.search('ferret', { view: 'raw', sessionId: forkId, includeForks: true, limit: 200 });
    expect(forkOnly.hits).toHaveLength(forkIds.filter((_, index) => index % 10 === 5).length);
  });

  it('a fork’s resolved view uses the fork’s line', async () => {
    const { ledger, forkId, sourceCompactions, forkCompactions } = scenario;
    const forkNewest = forkCompactions.at(-1) as CompactionTurn;
    const sourceNewest = sourceCompactions.at(-1) as CompactionTurn;
    expect(forkNewest.id).not.toBe(sourceNewest.id);
    expect((await ledger.canon(id(2), { sessionId: forkId }))?.id).toBe(forkNewest.id);

    const viaFork = await ledger.search('zebrafish', { sessionId: forkId });
    expect(viaFork.hits.map((hit) => [hit.turnId, hit.via, hit.sessionId])).toEqual([[forkNewest.id, id(2), forkId]]);
    const global = await ledger.search('zebrafish');
    expect(global.hits.map((hit) => [hit.turnId, hit.via])).toEqual([[sourceNewest.id, id(2)]]);
  });

  // BUG: with sessionId + includeForks, every hit is resolved against the *viewed* session's line
  // (resolveHit passes options.sessionId to canonicalCompaction). A fork's own turn is not on the
  // parent's line, so canon finds no compaction and the fork's summarized turns come back raw
  // (via null) in the resolved view, although the fork's compactions stand in for them (as the
  // global search and the fork's own view both report). The recall tool searches this way.
  it('with includeForks, a fork’s summarized turns still resolve to the fork’s compaction', async () => {
    const { ledger, sourceId, forkIds, forkCompactions } = scenario;
    const summarized = forkIds[0] as string;
    expect((await ledger.canon(summarized))?.id).toBe(forkCompactions.at(-1)?.id);
    const result = await ledger.search('wombat', { sessionId: sourceId, includeForks: true, limit: 200 });
    for (const hit of result.hits) {
      if (hit.via === null) expect(await ledger.canon(hit.turnId), hit.turnId).toBeNull();
    }
    expect(result.hits.map((hit) => hit.turnId)).toContain(forkCompactions.at(-1)?.id);
  });

  it('an unknown session is an error with a code, not a driver error', async () => {
    const error = await scenario.ledger.search('ferret', { sessionId: 's_nope' }).catch((caught: unknown) => caught);
    expect(LedgerError.isInstance(error)).toBe(true);
    expect((error as LedgerError).code).toBe('SESSION_NOT_FOUND');
  });
});

describe('filters', () => {
  const kiwi = (predicate: (plan: Planned) => boolean) =>
    planIndexes((plan) => plan.index >= 10 && plan.index < 20 && predicate(plan)).sort();

  async function kiwiHits(options: TurnSearchOptions): Promise<string[]> {
    const result = await scenario.ledger.search('kiwi', { view: 'raw', limit: 200, ...options });
    return result.hits.map((hit) => hit.turnId).sort();
  }

  it('role, turnType and author each narrow the hits', async () => {
    expect(await kiwiHits({})).toEqual(kiwi(() => true));
    expect(await kiwiHits({ role: 'user' })).toEqual(kiwi((plan) => plan.role === 'user'));
    expect(await kiwiHits({ role: 'assistant' })).toEqual(kiwi((plan) => plan.role === 'assistant'));
    expect(await kiwiHits({ turnType: 'normal' })).toEqual(kiwi(() => true));
    expect(await kiwiHits({ turnType: 'compaction' })).toEqual([]);
    expect(await kiwiHits({ author: 'dana' })).toEqual(kiwi((plan) => plan.author === 'dana'));
    expect(await kiwiHits({ author: 'eli' })).toEqual(kiwi((plan) => plan.author === 'eli'));
    expect(await kiwiHits({ author: 'nobody' })).toEqual([]);
  });

  it('since and until are inclusive bounds on the timestamp', async () => {
    const at = (index: number) => BASE_TIME + index * MINUTE;
    expect(await kiwiHits({ since: at(14) })).toEqual(kiwi((plan) => plan.index >= 14));
    expect(await kiwiHits({ until: at(14) })).toEqual(kiwi((plan) => plan.index <= 14));
    expect(await kiwiHits({ since: at(12), until: at(12) })).toEqual([id(12)]);
    expect(await kiwiHits({ since: at(12) + 1, until: at(13) - 1 })).toEqual([]);
    expect(await kiwiHits({ since: at(15), until: at(11) })).toEqual([]);
  });

  it('filters combine', async () => {
    const at = (index: number) => BASE_TIME + index * MINUTE;
    expect(await kiwiHits({ role: 'user', author: 'dana', since: at(11), until: at(18) })).toEqual(
      kiwi((plan) => plan.role === 'user' && plan.author === 'dana' && plan.index >= 11 && plan.index <= 18),
    );
    expect(await kiwiHits({ role: 'assistant', author: 'dana' })).toEqual(
      kiwi((plan) => plan.role === 'assistant' && plan.author === 'dana'),
    );
    // In the resolved view the filters still pick the matching turns; the hits stand in for them.
    const resolved = await scenario.ledger.search('kiwi', { author: 'dana', role: 'user', limit: 200 });
    const vias = resolved.hits.map((hit) => hit.via ?? hit.turnId);
    for (const via of vias) expect(kiwi((plan) => plan.author === 'dana' && plan.role === 'user')).toContain(via);
  });
});

describe('pagination', () => {
  it('following nextCursor with limit 3 visits every raw hit exactly once, in score order', async () => {
    const everything = await scenario.ledger.search('lemur', { view: 'raw', limit: 200 });
    expect(everything.hits).toHaveLength(25);
    expect(everything.nextCursor).toBeNull();
    const { hits, pages } = await allPages('lemur', { view: 'raw', limit: 3 });
    expect(pages).toBe(Math.ceil(25 / 3));
    expect(hits.map((hit) => hit.turnId)).toEqual(everything.hits.map((hit) => hit.turnId));
    expect(new Set(hits.map((hit) => hit.turnId)).size).toBe(25);
    const scores = hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((left, right) => left - right));
  });

  it('pages hold exactly limit hits when more remain, for every limit', async () => {
    for (const limit of [1, 2, 5, 24, 25, 26]) {
      const { hits } = await allPages('lemur', { view: 'raw', limit });
      expect(hits.map((hit) => hit.turnId).sort(), `limit ${limit}`).toEqual(
        planIndexes((plan) => plan.index >= 20 && plan.index < 45).sort(),
      );
    }
  });

  it('filters apply on every page', async () => {
    const { hits } = await allPages('lemur', { view: 'raw', limit: 2, role: 'user', sessionId: scenario.forkId });
    expect(hits.map((hit) => hit.turnId).sort()).toEqual(
      planIndexes((plan) => plan.index >= 20 && plan.index <= FORK_POINT && plan.role === 'user').sort(),
    );
  });

  it('following nextCursor in the resolved view skips no resolved hit', async () => {
    const single = await scenario.ledger.search('gecko', { limit: 200 });
    for (const limit of [1, 2, 3]) {
      const { hits } = await allPages('gecko', { limit });
      expect(new Set(hits.map((hit) => hit.turnId)), `limit ${limit}`).toEqual(new Set(single.hits.map((hit) => hit.turnId)));
      // Every via is a raw match that the compaction stands in for.
      for (const hit of hits) if (hit.via !== null) expect((await scenario.ledger.canon(hit.via))?.id).toBe(hit.turnId);
    }
  });

  // BUG: the resolved view dedupes compactions within one page only. A compaction that stands in for
  // many matching turns comes back on later pages again (with another `via`), so following
  // nextCursor repeats it, although pages are promised to "neither repeat nor skip".
  it('following nextCursor in the resolved view never repeats a hit', async () => {
    const single = await scenario.ledger.search('gecko', { limit: 200 });
    expect(single.hits.length).toBeGreaterThan(2);
    const { hits } = await allPages('gecko', { limit: 2 });
    expect(hits.map((hit) => hit.turnId)).toEqual(single.hits.map((hit) => hit.turnId));
  });

  it('a malformed cursor is an InvalidInputError', async () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      'garbage!',
      'not a cursor',
      encode({ score: 1, rowid: 2 }),
      encode([1]),
      encode(['a', 1]),
      encode([1, 'b']),
      encode([1, 1.5]),
      encode([null, 1]),
      encode('[1,2]'),
      Buffer.from('[1e999, 1]').toString('base64url'),
      Buffer.from('[1, 2').toString('base64url'),
    ];
    for (const cursor of bad) {
      for (const view of ['raw', 'resolved'] as const) {
        const error = await scenario.ledger.search('lemur', { view, cursor }).catch((caught: unknown) => caught);
        expect(error, cursor).toBeInstanceOf(InvalidInputError);
        expect((error as InvalidInputError).code).toBe('INVALID_INPUT');
      }
    }
  });

  it('a limit outside 1..200 is an InvalidInputError', async () => {
    for (const limit of [0, -1, 201, 1.5, Number.NaN]) {
      const error = await scenario.ledger.search('lemur', { limit }).catch((caught: unknown) => caught);
      expect(error, String(limit)).toBeInstanceOf(InvalidInputError);
    }
  });
});
