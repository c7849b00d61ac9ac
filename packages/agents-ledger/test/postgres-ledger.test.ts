// The agents ledger's core behaviours on PostgreSQL, checked against SQLite: one script (appends and
// head conflicts, forks, histories, flat and union-find compactions, search in both views, plain
// and hybrid contexts, doctor) runs on a SQLite file and on a fresh PostgreSQL database with the
// same ids and clock, and what it saw must be the same on both (search scores aside: each engine
// ranks with its own function, so hits are compared as ids, in order where the ranking is clear).

import { HeadConflictError, type Turn } from '@agent-ledger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentsLedger, TurnSearchResult } from '../src/index.ts';
import { storeOf } from '../src/testing.ts';
import {
  appendConversation,
  assistantTurn,
  type Engine,
  type EngineLedger,
  fullHistory,
  openEngineLedger,
  postgresServer,
  prose,
  SMALL_SETTINGS,
  sessionHistory,
  toolResultTurn,
  toolUseTurn,
  userTurn,
} from './builders.ts';
import { appendTopics, roundRobinPlan } from './topic-builders.ts';

const server = postgresServer();

/** A turn as both engines must return it. */
function turnView(turn: Turn) {
  return turn;
}

/**
 * A result's hits as a set: each engine ranks with its own function (bm25, ts_rank_cd), so the order
 * of hits that match alike, and which matching turn a compaction is found `via`, may differ.
 */
function hitIds(result: TurnSearchResult) {
  return result.hits
    .map((hit) => ({ turnId: hit.turnId, turnType: hit.turnType, sessionId: hit.sessionId, resolved: hit.via !== null }))
    .sort((a, b) => a.turnId.localeCompare(b.turnId));
}

/** What the script saw, keyed by step: compared between the engines. */
type Seen = Record<string, unknown>;

/** A step's value, or what it threw: one engine failing a step shows in that step's comparison, and the script goes on. */
async function attempt<T>(work: () => Promise<T>): Promise<T | { threw: string }> {
  try {
    return await work();
  } catch (error) {
    return { threw: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

async function script(ledger: AgentsLedger): Promise<Seen> {
  const seen: Seen = {};

  // Appends and the head compare-and-set.
  const session = await ledger.createSession({ settings: SMALL_SETTINGS, label: 'flat' });
  const first = await appendConversation(ledger, session.id, 12, 40);
  const head = first.at(-1) as string;
  const conflict = await ledger
    .appendTurn(session.id, { ...userTurn('stale writer'), expectedHeadTurnId: first[3] as string })
    .then(
      () => null,
      (error: unknown) => error,
    );
  expect(conflict).toBeInstanceOf(HeadConflictError);
  const { sessionId, expected, actual, code } = conflict as HeadConflictError;
  seen.conflict = { sessionId, expected, actual, code };
  const emptyConflict = await ledger.appendTurn(session.id, { ...userTurn('thinks it is first'), expectedHeadTurnId: null }).then(
    () => null,
    (error: unknown) => (error as HeadConflictError).actual,
  );
  seen.emptyConflict = emptyConflict;
  seen.headAfterConflicts = (await ledger.getSession(session.id)).headTurnId;
  expect(seen.headAfterConflicts).toBe(head);
  const tools = await ledger.appendTurns(session.id, [
    {
      ...toolUseTurn('toolu_1', 'read_file', { path: 'src/zebrafish.ts' }, 'Reading the zebrafish module.'),
      expectedHeadTurnId: head,
    },
    toolResultTurn('toolu_1', 'export const zebrafish = 42; // the narwhal migration'),
  ]);
  seen.tools = tools.map(turnView);
  // Byte for byte: content and metadata come back as appended, object keys in their order (what a
  // model API's prompt cache and a hash of the turn see), not only as equal values.
  const keyed = await ledger.appendTurn(session.id, {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_2', name: 'run', input: { zeta: 1, alpha: { y: 2, b: 3 } } }],
    metadata: { source: 'test', a: 1 },
  });
  await ledger.appendTurn(session.id, toolResultTurn('toolu_2', 'ran'));
  seen.serialized = JSON.stringify([await ledger.getTurn(keyed.id), (await ledger.buildContext(keyed.id)).messages]);

  // Flat compactions.
  const c1 = await ledger.compact(session.id, { trigger: 'manual' });
  const more = await appendConversation(ledger, session.id, 10, 40, 100);
  const c2 = await ledger.compact(session.id, { trigger: 'manual' });
  await appendConversation(ledger, session.id, 4, 20, 200);
  seen.compactions = [c1, c2].map(turnView);
  seen.summarized = (await ledger.getSummarizedTurns(c2.id)).map((turn) => turn.id);
  seen.canon = await attempt(() => ledger.canon(first[2] as string, { sessionId: session.id }));
  seen.usage = await attempt(() => ledger.contextUsage(session.id));

  // Forks: plain and full, then each goes its own way.
  const plain = await ledger.forkFrom(more[5] as string);
  const full = await ledger.forkFrom(more[5] as string, { full: true });
  await ledger.appendTurn(plain.session.id, userTurn('On the plain fork: the okapi deploy is next.'));
  await ledger.appendTurn(full.session.id, userTurn('On the full fork: the okapi rollback instead.'));
  const fork = await ledger.forkFrom(c2.id);
  seen.forks = { plain, full, fork };
  seen.tree = await attempt(() => ledger.tree(session.id));
  seen.sessions = await ledger.listSessions();

  // Histories: whole, own turns only, of each session.
  seen.history = await sessionHistory(ledger, session.id);
  seen.plainHistory = await sessionHistory(ledger, plain.session.id);
  const fullHead = (await ledger.getSession(full.session.id)).headTurnId as string;
  const own: Turn[] = [];
  for await (const turn of ledger.getFullHistory(fullHead, { ownTurnsOnly: true })) own.push(turn);
  seen.fullOwn = own.map((turn) => turn.id);
  expect(own).toHaveLength(1);

  // Contexts: the head at several budgets, a fork's view, a full rebuild, a system prompt.
  const sessionHead = (await ledger.getSession(session.id)).headTurnId as string;
  seen.contexts = {
    head: await attempt(() => ledger.buildContext(sessionHead)),
    budget300: await attempt(() => ledger.buildContext(sessionHead, { budgetTokens: 300, systemPrompt: 'Be brief.' })),
    fullRebuild: await attempt(() => ledger.buildContext(sessionHead, { full: true, budgetTokens: 900 })),
    plainFork: await attempt(async () => ledger.buildContext((await ledger.getSession(plain.session.id)).headTurnId as string)),
    fullFork: await attempt(() => ledger.buildContext(fullHead, { sessionId: full.session.id })),
  };

  // Union-find: topics, find and expand, a second forest compaction.
  const uf = await ledger.createSession({
    settings: { contextWindow: 900, reserveTokens: 100, keepRecentTokens: 200 },
    strategy: 'union-find',
    label: 'topics',
  });
  await appendTopics(ledger, uf.id, roundRobinPlan(4));
  const u1 = await ledger.compact(uf.id);
  const { ids: later } = await appendTopics(ledger, uf.id, roundRobinPlan(3), 24);
  const u2 = await ledger.compact(uf.id);
  await ledger.appendTurn(uf.id, userTurn('The staging database listens on port 5432, the zebrafish said.'));
  await ledger.appendTurn(uf.id, assistantTurn(prose(30, 9)));
  seen.forest = [u1, u2].map(turnView);
  const topics = await ledger.topics(uf.id);
  expect(topics.length).toBeGreaterThan(1);
  seen.topics = topics;
  seen.expanded = await Promise.all(topics.map(async (topic) => (await ledger.expandTopic(topic.id)).map((turn) => turn.id)));
  seen.found = await attempt(() => ledger.findTopic(later[0] as string));
  const dropped = await ledger.dropTopic(topics[0]?.id as string);
  seen.dropped = dropped;
  const ufHead = (await ledger.getSession(uf.id)).headTurnId as string;
  seen.ufContexts = {
    plain: await attempt(() => ledger.buildContext(ufHead, { budgetTokens: 700 })),
    query: await attempt(() => ledger.buildContext(ufHead, { budgetTokens: 700, query: 'postgres vacuum' })),
  };
  await ledger.restoreTopic(topics[0]?.id as string);

  // Search: resolved and raw, a session's line, a word only in summarized turns, no match, paging.
  const searches = {
    resolved: () => ledger.search('zebrafish'),
    raw: () => ledger.search('zebrafish', { view: 'raw' }),
    onFork: () => ledger.search('okapi', { sessionId: plain.session.id }),
    withForks: () => ledger.search('okapi', { sessionId: session.id, includeForks: true }),
    assistantOnly: () => ledger.search('migration', { role: 'assistant', view: 'raw', limit: 200 }),
    compactions: () => ledger.search('migration', { turnType: 'compaction', view: 'raw', limit: 200 }),
    nothing: () => ledger.search('xylophone'),
    hostile: () => ledger.search('"unbalanced (quote OR* NEAR'),
  };
  const found: Record<string, unknown> = {};
  for (const [name, search] of Object.entries(searches)) {
    const result = await attempt(search);
    if ('threw' in result) {
      found[name] = result;
      continue;
    }
    found[name] = hitIds(result);
    for (const hit of result.hits) expect(hit.snippet, `${name} snippet of ${hit.turnId}`).toMatch(/\[[^\]]+\]/);
    if (name === 'resolved') expect(result.hits.some((hit) => hit.via !== null)).toBe(true);
    if (name === 'raw') expect(result.hits.every((hit) => hit.via === null)).toBe(true);
  }
  seen.search = found;
  // Every hit of a page, paged two at a time, and no more.
  const paged: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.search('migration', { view: 'raw', limit: 2, cursor });
    paged.push(...page.hits.map((hit) => hit.turnId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const all = await ledger.search('migration', { view: 'raw', limit: 200 });
  expect(paged).toEqual(all.hits.map((hit) => hit.turnId));
  seen.pagedMigration = [...paged].sort();

  // Retrieval and the hybrid context: which turns come back (their order is the ranking's).
  const ids = (turnIds: readonly string[]) => [...turnIds].sort();
  seen.retrieve = await attempt(async () => {
    const retrieval = await ledger.retrieve(ufHead, { query: 'staging database port', budgetTokens: 400 });
    return ids(retrieval.pieces.flatMap((piece) => piece.turnIds));
  });
  seen.retrieveQuestion = await attempt(async () => {
    const retrieval = await ledger.retrieve(ufHead, {
      query: 'Which port does the staging database listen on?',
      budgetTokens: 400,
    });
    // The pieces that answer it. Beyond them the engines differ on purpose: PostgreSQL's english
    // configuration drops stop words ("which", "does", "the"), so it retrieves no turn matched on
    // those alone, where SQLite's FTS5 ranks them low but keeps them (docs/operations.md).
    const answering = retrieval.pieces.filter((piece) => /staging/i.test(piece.text) && /port/i.test(piece.text));
    return { answering: ids(answering.flatMap((piece) => piece.turnIds)), best: ids(retrieval.pieces[0]?.turnIds ?? []) };
  });
  seen.hybrid = await attempt(async () => {
    const flat = await ledger.buildContext(sessionHead, { budgetTokens: 600, query: 'zebrafish narwhal', retrieval: true });
    const unionFind = await ledger.buildContext(ufHead, { budgetTokens: 700, query: 'staging database port', retrieval: true });
    return [flat, unionFind].map((context) => ({
      compactionTurnId: context.compactionTurnId,
      retrieved: ids(context.retrievedTurnIds),
      included: context.includedTurnIds,
      within: context.tokens <= (context === flat ? 600 : 700),
    }));
  });

  seen.doctor = await attempt(() => ledger.doctor());
  return seen;
}

describe.skipIf(server === null)(
  `the agents ledger on PostgreSQL sees what it sees on SQLite${server === null ? ' (skipped: no PostgreSQL server here, apt-get install postgresql)' : ''}`,
  () => {
    const opened: EngineLedger[] = [];
    const seen: Partial<Record<Engine, Seen>> = {};

    beforeAll(async () => {
      for (const engine of ['sqlite', 'postgres'] as const) {
        const temp = await openEngineLedger(engine, {}, 'ledger_script');
        opened.push(temp);
        expect(storeOf(temp.ledger).engine).toBe(engine);
        seen[engine] = await script(temp.ledger);
      }
    }, 120_000);
    afterAll(async () => {
      for (const temp of opened) await temp.cleanup();
    });

    const steps = [
      ['conflict', 'a stale head is a HeadConflictError naming the actual head, and writes nothing'],
      ['emptyConflict', 'expecting an empty session when it is not names its head'],
      ['headAfterConflicts', 'the head after refused appends'],
      ['tools', 'a tool exchange appended in one batch'],
      ['serialized', 'a turn and a context serialized: object keys in the order they were appended'],
      ['compactions', 'flat compactions: cut, tokens, summary'],
      ['summarized', 'the turns a compaction summarized'],
      ['canon', 'the compaction standing in for a summarized turn'],
      ['usage', 'context usage'],
      ['forks', 'plain, full and compaction forks'],
      ['tree', 'the session tree'],
      ['sessions', 'the session list'],
      ['history', 'the whole history'],
      ['plainHistory', 'a fork’s history'],
      ['fullOwn', 'a fork’s own turns'],
      ['contexts', 'contexts: budgets, system prompt, full rebuild, fork views'],
      ['forest', 'union-find compactions'],
      ['topics', 'topics'],
      ['expanded', 'expanded topics'],
      ['found', 'the topic of a turn'],
      ['dropped', 'a dropped topic'],
      ['ufContexts', 'union-find contexts, with and without a query'],
      ['search', 'search hits (resolved, raw, session lines, filters, hostile text)'],
      ['pagedMigration', 'paging through every hit'],
      ['retrieve', 'retrieval (the turns retrieved)'],
      ['retrieveQuestion', 'retrieval for a question in plain words: the turns that answer it, ranked first'],
      ['hybrid', 'hybrid contexts (the turns retrieved, the raw turns kept)'],
      ['doctor', 'doctor'],
    ] as const;
    for (const [key, title] of steps) {
      it(`${title}: the same on both engines`, () => {
        expect(seen.postgres?.[key], key).toEqual(seen.sqlite?.[key]);
      });
    }
  },
);

// Fresh databases give each file its own ledger: a second one here starts empty.
describe.skipIf(server === null)('a fresh PostgreSQL database', () => {
  it('holds no sessions, and sessions written to one are not in another', async () => {
    const one = await openEngineLedger('postgres', {}, 'isolated');
    const two = await openEngineLedger('postgres', {}, 'isolated');
    try {
      await one.ledger.createSession({ label: 'only here' });
      expect((await one.ledger.listSessions()).map((session) => session.label)).toEqual(['only here']);
      expect(await two.ledger.listSessions()).toEqual([]);
      expect(one.location).not.toBe(two.location);
      expect(
        await fullHistory(
          one.ledger,
          (await appendConversation(one.ledger, (await one.ledger.listSessions())[0]?.id as string, 2))[1] as string,
        ),
      ).toHaveLength(2);
    } finally {
      await one.cleanup();
      await two.cleanup();
    }
  });
});
