// Union-find compaction on a conversation about three topics that share no word (postgres,
// prometheus, backups): the topics it forms, how they are found, expanded, injected by query and
// budget, dropped and restored, what each compaction asks the summarizer, and how it hands over
// to and from flat compactions.

import type { CompactionTurn } from '@agent-ledger/core';
import { TopicForest } from '@agent-ledger/forest';
import { type LedgerStore, openLedgerStore } from '@agent-ledger/store';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentsLedger, createAgentsLedger, renderSummaryBlock } from '../src/index.ts';
import { loadForestState } from '../src/strategies/union-find/forest-store.ts';
import { storeOf } from '../src/testing.ts';
import { newSession, normalIds, openTempLedger, SMALL_SETTINGS, sessionHistory, type TempLedger } from './builders.ts';
import {
  appendTopics,
  countingSummarizer,
  metadataOf,
  roundRobinPlan,
  TOPIC_NAMES,
  TOPIC_VOCABULARY,
  type TopicName,
  topicMembers,
  topicText,
} from './topic-builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

/** 36 turns, two at a time on each topic in turn, compacted once with union-find. */
async function threeTopics(options: Parameters<typeof openTempLedger>[0] = {}, plan = roundRobinPlan(6)) {
  temp = openTempLedger(options);
  const { ledger } = temp;
  const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
  const { ids, topicOf } = await appendTopics(ledger, session.id, plan);
  const compaction = await ledger.compact(session.id);
  const through = ids.indexOf(compaction.summarizedThroughTurnId);
  return { ledger, session, ids, topicOf, compaction, summarized: ids.slice(0, through + 1), kept: ids.slice(through + 1) };
}

/** The id of the topic holding the turns about `name` (the test conversations keep topics apart). */
async function topicIdOf(ledger: AgentsLedger, sessionId: string, topicOf: Map<string, TopicName>, name: TopicName) {
  const found = (await topicMembers(ledger, sessionId)).filter((topic) =>
    topic.members.some((member) => topicOf.get(member) === name),
  );
  expect(found, `topics holding ${name}`).toHaveLength(1);
  return (found[0] as { id: string }).id;
}

/** Tokens of the topics header a union-find context opens with. */
function headerTokens(ledger: AgentsLedger, compaction: CompactionTurn): number {
  return ledger.tokenCounter.countText(renderSummaryBlock({ ...compaction, summary: '' }));
}

const QUERIES: Record<TopicName, string> = {
  postgres: 'Why does autovacuum lag on the replica?',
  prometheus: 'Which grafana dashboard shows the scrape cardinality?',
  backups: 'Is the restic retention offsite?',
};

describe('topics of a union-find compaction', () => {
  it('puts each of three distinct topics in a topic of its own', async () => {
    const { ledger, session, topicOf, summarized } = await threeTopics();
    const topics = await topicMembers(ledger, session.id);
    expect(topics).toHaveLength(3);
    const names = topics.map((topic) => {
      const namesInTopic = new Set(topic.members.map((member) => topicOf.get(member)));
      expect(namesInTopic.size, `topic ${topic.id} mixes ${[...namesInTopic].join(', ')}`).toBe(1);
      return [...namesInTopic][0];
    });
    expect(new Set(names)).toEqual(new Set(TOPIC_NAMES));
    // Every summarized turn is in exactly one topic, and no other turn is in any.
    const members = topics.flatMap((topic) => topic.members);
    expect([...members].sort()).toEqual([...summarized].sort());
  });

  it('records on the compaction the topics ledger.topics lists, and its summary is their blocks', async () => {
    const { ledger, session, compaction } = await threeTopics();
    const topics = await ledger.topics(session.id);
    expect(metadataOf(compaction).topics).toEqual(
      topics.map((topic) => ({ id: topic.id, summaryVersion: topic.summaryVersion, members: topic.members })),
    );
    expect(metadataOf(compaction).compacts).toBe(topics.reduce((total, topic) => total + topic.members, 0));
    expect(metadataOf(compaction).sourceTokens).toBe(topics.reduce((total, topic) => total + topic.memberTokens, 0));
    expect(metadataOf(compaction).summarizerCalls).toBe(3);
    expect(metadataOf(compaction).unsummarizedTopics).toBeUndefined();
    const blocks = compaction.summary.split('\n\n');
    expect(blocks).toHaveLength(topics.length);
    topics.forEach((topic, index) => {
      expect(topic).toMatchObject({ compactionId: compaction.id, dirty: false, dropped: false, summaryVersion: 1 });
      expect(topic.summary).toEqual(expect.any(String));
      const block = blocks[index] as string;
      expect(block.startsWith(`[topic ${topic.id} · `)).toBe(true);
      expect(block.split('\n')[0]).toContain(`compacts=${topic.members} `);
      expect(block).toContain(topic.summary as string);
      expect(ledger.tokenCounter.countText(block)).toBe(topic.tokens);
    });
  });

  it('finds the topic of every summarized turn, expanding it gives the turn back, and kept turns have none', async () => {
    const { ledger, session, compaction, summarized, kept } = await threeTopics();
    expect(kept.length).toBeGreaterThan(0);
    for (const turnId of summarized) {
      const found = await ledger.findTopic(turnId);
      expect(found.turnId).toBe(turnId);
      expect(found.compactionId).toBe(compaction.id);
      expect(found.clusterId, turnId).not.toBeNull();
      const members = await ledger.expandTopic(found.clusterId as string, { sessionId: session.id });
      expect(members.map((turn) => turn.id)).toContain(turnId);
    }
    for (const turnId of kept) {
      expect(await ledger.findTopic(turnId)).toEqual({ turnId, clusterId: null, compactionId: null });
    }
  });

  it('a query ranks its topic first, and the system holds that topic block with its id', async () => {
    const { ledger, session, topicOf, compaction } = await threeTopics();
    const head = compaction.id;
    const plain = await ledger.buildContext(head);
    expect(plain.topics.map((topic) => topic.similarity)).toEqual([null, null, null]);
    for (const name of TOPIC_NAMES) {
      const id = await topicIdOf(ledger, session.id, topicOf, name);
      const context = await ledger.buildContext(head, { query: QUERIES[name] });
      const ranked = [...context.topics].sort((a, b) => (b.similarity ?? 0) - (a.similarity ?? 0));
      expect(ranked[0]?.id, name).toBe(id);
      expect(ranked[0]?.similarity).toBeGreaterThan(0);
      for (const other of ranked.slice(1)) expect(other.similarity, `${name} vs ${other.id}`).toBe(0);
      const block = compaction.summary.split('\n\n').find((candidate) => candidate.startsWith(`[topic ${id} `));
      expect(block).toBeDefined();
      expect(context.system).toContain(block as string);
      expect(context.compactionTurnId).toBe(compaction.id);
    }
  });

  it('with room for one topic, the one nearest the query is kept and the budget holds', async () => {
    const { ledger, session, topicOf, compaction } = await threeTopics();
    const topics = await ledger.topics(session.id);
    const largest = Math.max(...topics.map((topic) => topic.tokens));
    const smallest = Math.min(...topics.map((topic) => topic.tokens));
    // Half the budget goes to topics while raw turns want more than the other half.
    const budget = 2 * (headerTokens(ledger, compaction) + largest + 1);
    expect(budget / 2).toBeLessThan(headerTokens(ledger, compaction) + largest + smallest + 2);
    for (const name of TOPIC_NAMES) {
      const id = await topicIdOf(ledger, session.id, topicOf, name);
      const context = await ledger.buildContext(compaction.id, { query: QUERIES[name], budgetTokens: budget });
      expect(context.tokens).toBeLessThanOrEqual(budget);
      expect(context.topics.map((topic) => topic.id)).toEqual([id]);
      expect([...context.omittedTopicIds].sort()).toEqual(
        topics
          .map((topic) => topic.id)
          .filter((other) => other !== id)
          .sort(),
      );
      expect(context.system).toContain(`[topic ${id} `);
      expect(context.summaryTruncated).toBe(false);
      expect(context.includedTurnIds.length).toBeGreaterThan(0);
    }
  });

  it('with less room than every topic whole, each shows its best lines under a header saying how many are left out', async () => {
    const { ledger, session, compaction } = await threeTopics();
    const topics = await ledger.topics(session.id);
    const whole = topics.reduce((total, topic) => total + topic.tokens + 1, 0);
    // topicShare 1: the topics may take the whole budget, so their room is the budget less the header.
    const budget = headerTokens(ledger, compaction) + Math.floor(whole * 0.6);
    const context = await ledger.buildContext(compaction.id, { budgetTokens: budget, topicShare: 1 });
    expect(context.tokens).toBeLessThanOrEqual(budget);
    // Topics may take the whole budget but the room of the newest user turn: a request needs one.
    expect(context.messages).toHaveLength(1);
    expect(context.messages[0]?.role).toBe('user');
    const trimmed = context.topics.filter((topic) => topic.linesLeftOut > 0);
    expect(trimmed.length).toBeGreaterThan(0);
    for (const injected of context.topics) {
      const start = context.system.indexOf(`[topic ${injected.id} `);
      expect(start, injected.id).toBeGreaterThanOrEqual(0);
      const block = context.system.slice(start).split('\n\n')[0] as string;
      const [header, ...lines] = block.split('\n');
      expect(injected.tokens).toBe(ledger.tokenCounter.countText(block));
      if (injected.linesLeftOut > 0)
        expect(header).toMatch(new RegExp(`· ${injected.linesLeftOut} more lines? by expanding\\]$`));
      else expect(header).not.toMatch(/by expanding/);
      // Every line shown cites a turn of that topic: expanding it gives the rest back.
      const members = new Set((await ledger.expandTopic(injected.id, { sessionId: session.id })).map((turn) => turn.id));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(members.has(line.match(/^\[(t_\w+)\]/)?.[1] ?? ''), line).toBe(true);
    }
    // Without a budget the context shows what the compaction turn stored.
    const plain = await ledger.buildContext(compaction.id);
    expect(plain.system).toContain(compaction.summary);
  });

  it('a dropped topic leaves the context and a restored one comes back', async () => {
    const { ledger, session, topicOf, compaction } = await threeTopics();
    const id = await topicIdOf(ledger, session.id, topicOf, 'postgres');
    const dropped = await ledger.dropTopic(id);
    expect(dropped).toMatchObject({ id, dropped: true });
    expect((await ledger.topics(session.id)).filter((topic) => topic.dropped).map((topic) => topic.id)).toEqual([id]);

    for (const options of [{}, { query: QUERIES.postgres }, { query: QUERIES.postgres, budgetTokens: 400 }]) {
      const context = await ledger.buildContext(compaction.id, options);
      expect(context.topics.map((topic) => topic.id)).not.toContain(id);
      if (options.budgetTokens === undefined) expect(context.topics).toHaveLength(2);
      expect(context.omittedTopicIds).not.toContain(id);
      expect(context.system).not.toContain(id);
      expect(context.system).not.toContain('postgres');
    }
    // Still there to expand: a drop deletes nothing.
    expect((await ledger.expandTopic(id)).length).toBe(dropped.members);

    const restored = await ledger.restoreTopic(id);
    expect(restored).toMatchObject({ id, dropped: false });
    const context = await ledger.buildContext(compaction.id, { query: QUERIES.postgres });
    expect(context.topics.map((topic) => topic.id)).toContain(id);
    expect(context.system).toContain(`[topic ${id} `);
    expect(context).toEqual(await ledger.buildContext(compaction.id, { query: QUERIES.postgres }));
  });

  it('a dropped topic takes no new members at the next compaction', async () => {
    const { ledger, session, topicOf, ids } = await threeTopics();
    const id = await topicIdOf(ledger, session.id, topicOf, 'postgres');
    const membersBefore = (await ledger.expandTopic(id)).map((turn) => turn.id);
    await ledger.dropTopic(id);
    const more = await appendTopics(ledger, session.id, roundRobinPlan(3), ids.length);
    const second = await ledger.compact(session.id);
    const secondThrough = more.ids.indexOf(second.summarizedThroughTurnId);
    expect(secondThrough).toBeGreaterThan(0);

    expect((await ledger.expandTopic(id, { sessionId: session.id })).map((turn) => turn.id)).toEqual(membersBefore);
    const listed = (await ledger.topics(session.id)).find((topic) => topic.id === id);
    expect(listed).toMatchObject({ dropped: true, members: membersBefore.length, compactionId: second.id });
    expect((metadataOf(second).topics as Array<{ id: string }>).map((topic) => topic.id)).not.toContain(id);
    expect(second.summary).not.toContain(`[topic ${id} `);
    // The new postgres turns gathered elsewhere, in a topic of postgres turns only.
    const newPostgres = more.ids.slice(0, secondThrough + 1).filter((turnId) => more.topicOf.get(turnId) === 'postgres');
    expect(newPostgres.length).toBeGreaterThan(0);
    for (const turnId of newPostgres) {
      const found = await ledger.findTopic(turnId);
      expect(found.clusterId).not.toBe(id);
      expect(found.clusterId).not.toBeNull();
      for (const member of await ledger.expandTopic(found.clusterId as string)) {
        expect(topicOf.get(member.id) ?? more.topicOf.get(member.id)).toBe('postgres');
      }
    }
    expect(await ledger.doctor()).toEqual([]);
  });

  it('expanding or dropping a member that is not a root throws CLUSTER_NOT_FOUND naming the root', async () => {
    const { ledger, session } = await threeTopics();
    const [topic] = await topicMembers(ledger, session.id);
    if (!topic) throw new Error('no topic');
    const member = topic.members.find((turnId) => turnId !== topic.id) as string;
    for (const attempt of [() => ledger.expandTopic(member), () => ledger.dropTopic(member)]) {
      const error = await attempt().then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ code: 'CLUSTER_NOT_FOUND', clusterId: member });
      expect((error as Error).message).toContain(topic.id);
    }
    expect((await ledger.topics(session.id)).every((listed) => !listed.dropped)).toBe(true);
  });

  it('the next compaction calls the summarizer once per dirty topic and sends only the new members', async () => {
    const summarizer = countingSummarizer();
    // Prometheus only early on: the turns kept raw, and everything after, are about the other two.
    const plan: TopicName[] = [...roundRobinPlan(4), ...roundRobinPlan(6, 2, ['postgres', 'backups'])];
    const { ledger, session, topicOf, ids, compaction } = await threeTopics({ summarizer }, plan);
    expect(summarizer.calls).toHaveLength(3);
    const prometheus = await topicIdOf(ledger, session.id, topicOf, 'prometheus');
    const before = new Map((await ledger.topics(session.id)).map((topic) => [topic.id, topic]));
    summarizer.reset();

    const more = await appendTopics(ledger, session.id, roundRobinPlan(4, 2, ['backups', 'postgres']), ids.length);
    const second = await ledger.compact(session.id);
    const after = await ledger.topics(session.id);
    expect(after.map((topic) => topic.id)).toEqual([...before.keys()]);
    const changed = after.filter((topic) => topic.members !== before.get(topic.id)?.members);
    expect(changed.map((topic) => topic.id).sort()).toEqual(
      [...before.keys()].filter((topicId) => topicId !== prometheus).sort(),
    );
    // One call per topic that took members; none for the one that took none.
    expect(summarizer.calls).toHaveLength(changed.length);
    expect(metadataOf(second).summarizerCalls).toBe(changed.length);
    expect(after.find((topic) => topic.id === prometheus)).toEqual({
      ...before.get(prometheus),
      compactionId: second.id,
    });
    // Only the turns the second compaction summarized are sent, each once, with the topic's summary.
    const summarizedBySecond = normalIds(await ledger.getSummarizedTurns(second.id));
    expect(summarizedBySecond[0]).toBe(compaction.firstKeptTurnId);
    expect([...summarizer.turnsSent()].sort()).toEqual([...summarizedBySecond].sort());
    for (const call of summarizer.calls) {
      const names = new Set(call.turns.map((turn) => topicOf.get(turn.id) ?? more.topicOf.get(turn.id)));
      expect(names.size).toBe(1);
      const topic = before.get((await ledger.findTopic(call.turns[0]?.id as string)).clusterId as string);
      expect(call.previousSummary).toBe(topic?.summary);
    }
    for (const topic of changed) expect(topic.summaryVersion).toBe(2);
  });
});

/** Counts the calls of each operation of `store` (wrapped in place: the store stays the same object). */
function countingStore(store: LedgerStore): { store: LedgerStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const methods = store as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(methods)) {
    if (typeof value !== 'function' || name === 'transaction' || name === 'close') continue;
    methods[name] = (...args: unknown[]) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return (value as (...parameters: unknown[]) => unknown)(...args);
    };
  }
  return { store, calls };
}

describe('a context with a query, in a process that has loaded no forest', () => {
  /** The forest reads of one cold buildContext with a query, and what it found, after `rounds` compactions. */
  async function coldContext(rounds: number) {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    let start = 0;
    let compactions = 0;
    while (compactions < rounds) {
      start += (await appendTopics(ledger, session.id, roundRobinPlan(2), start)).ids.length;
      if (await ledger.shouldCompact(session.id)) {
        await ledger.compact(session.id);
        compactions += 1;
      }
    }
    const head = (await ledger.getSession(session.id)).headTurnId as string;
    const { store, calls } = countingStore(openLedgerStore(temp.file));
    const cold = createAgentsLedger({ store });
    try {
      const context = await cold.buildContext(head, { query: QUERIES.postgres });
      const forestCalls = Object.fromEntries(
        [...calls].filter(([name]) => /forest|frequenc|drop/i.test(name)).sort(([a], [b]) => (a < b ? -1 : 1)),
      );
      return { ledger, store, context, forestCalls };
    } finally {
      await cold.close();
    }
  }

  it('reads the clusters of one compaction and the frequencies of the query terms, never the forest, at any length', async () => {
    const short = await coldContext(2);
    const long = await coldContext(6);
    expect(short.forestCalls).toEqual({ documentFrequencies: 1, droppedTopics: 1, forestClusters: 1 });
    expect(long.forestCalls).toEqual(short.forestCalls);
  });

  it('gives every topic the similarity the replayed forest gives, to the last bit', async () => {
    const { ledger, context } = await coldContext(4);
    const compactionId = context.compactionTurnId as string;
    const forest = new TopicForest({ state: await loadForestState(storeOf(ledger), compactionId) });
    const expected = new Map(forest.nearest(QUERIES.postgres, 100).map((hit) => [hit.clusterId, hit.similarity]));
    expect(context.topics.length).toBeGreaterThan(1);
    expect(context.topics.some((topic) => (topic.similarity ?? 0) > 0)).toBe(true);
    for (const topic of context.topics) expect(topic.similarity).toBe(expected.get(topic.id) ?? 0);
  });
});

describe('union-find after and before flat', () => {
  it('a flat summary enters the forest as a node, standing for the turns it summarized', async () => {
    const summarizer = countingSummarizer();
    temp = openTempLedger({ summarizer });
    const { ledger } = temp;
    const session = await newSession(ledger);
    const first = await appendTopics(ledger, session.id, roundRobinPlan(6));
    const flat = await ledger.compact(session.id);
    expect(flat.strategy).toBe('flat');
    const flatSummarized = normalIds(await ledger.getSummarizedTurns(flat.id));
    const second = await appendTopics(ledger, session.id, roundRobinPlan(4), 36);
    summarizer.reset();
    const forest = await ledger.compact(session.id, { strategy: 'union-find' });
    expect(forest.strategy).toBe('union-find');
    expect((await ledger.getTurn(forest.summarizedThroughTurnId)).depth).toBeGreaterThan(flat.depth);

    const members = (await topicMembers(ledger, session.id)).flatMap((topic) => topic.members);
    const summarizedNow = normalIds(await ledger.getSummarizedTurns(forest.id));
    expect([...members].sort()).toEqual([flat.id, ...summarizedNow].sort());
    for (const turnId of flatSummarized) {
      const found = await ledger.findTopic(turnId);
      expect(found.compactionId).toBe(forest.id);
      expect(found.clusterId, turnId).not.toBeNull();
      expect((await ledger.expandTopic(found.clusterId as string)).map((turn) => turn.id)).toContain(flat.id);
    }
    // Its summary was folded in as a summary, not sent as a turn.
    expect(summarizer.turnsSent()).not.toContain(flat.id);
    expect(summarizer.calls.some((call) => call.previousSummary?.includes(flat.summary))).toBe(true);
    expect(first.ids.length + second.ids.length).toBe(60);
    expect(await ledger.doctor()).toEqual([]);
  });

  /** A flat compaction, then so few turns that the union-find cut falls among the turns it kept raw. */
  async function earlyCutAfterFlat() {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    await appendTopics(ledger, session.id, roundRobinPlan(6));
    const flat = await ledger.compact(session.id);
    await appendTopics(ledger, session.id, roundRobinPlan(1, 1), 36);
    const forest = await ledger.compact(session.id, { strategy: 'union-find' });
    return { ledger, session, flat, forest };
  }

  it('a union-find cut may fall among the turns a flat seed kept, and the seed still stands for its turns', async () => {
    const { ledger, session, flat, forest } = await earlyCutAfterFlat();
    expect((await ledger.getTurn(forest.summarizedThroughTurnId)).depth).toBeLessThan(flat.depth);
    const found = await ledger.findTopic(flat.summarizedThroughTurnId);
    expect(found.clusterId).not.toBeNull();
    expect((await ledger.expandTopic(found.clusterId as string)).map((turn) => turn.id)).toContain(flat.id);
    const members = (await topicMembers(ledger, session.id)).flatMap((topic) => topic.members);
    expect([...members].sort()).toEqual([flat.id, ...normalIds(await ledger.getSummarizedTurns(forest.id))].sort());
  });

  // The flat seed of such a forest sits after the cut in the chain, as any previous compaction may;
  // doctor must not take it for a node the compaction does not cover. The setup is checked above.
  it('doctor accepts a union-find compaction whose cut falls among the turns a flat seed kept', async () => {
    const { ledger } = await earlyCutAfterFlat();
    expect(await ledger.doctor()).toEqual([]);
  });

  it("a flat compaction after union-find folds the topics' text, and a later forest starts from it", async () => {
    const summarizer = countingSummarizer();
    const { ledger, session, ids, compaction } = await threeTopics({ summarizer });
    const more = await appendTopics(ledger, session.id, roundRobinPlan(4), ids.length);
    summarizer.reset();
    const flat = await ledger.compact(session.id, { strategy: 'flat' });
    expect(summarizer.calls).toHaveLength(1);
    expect(summarizer.calls[0]?.previousSummary).toBe(compaction.summary);
    const topicLines = new Set(compaction.summary.split('\n').filter((line) => /^\[t_/.test(line)));
    expect(flat.summary.split('\n').some((line) => topicLines.has(line))).toBe(true);
    // The flat compaction is what contexts start from now: no topics.
    expect(await ledger.topics(session.id)).toEqual([]);
    expect(await ledger.findTopic(ids[0] as string)).toEqual({ turnId: ids[0], clusterId: null, compactionId: flat.id });
    expect((await ledger.buildContext(flat.id)).system).toBe(renderSummaryBlock(flat));

    // A union-find compaction after it starts a new forest seeded by the flat summary.
    await appendTopics(ledger, session.id, roundRobinPlan(4), ids.length + more.ids.length);
    const again = await ledger.compact(session.id, { strategy: 'union-find' });
    const topics = await topicMembers(ledger, session.id);
    const seedTopic = topics.find((topic) => topic.members.includes(flat.id));
    expect(seedTopic).toBeDefined();
    expect(topics.flatMap((topic) => topic.members)).not.toContain(compaction.id);
    // A turn the first forest held is found through the compactions that folded it in.
    const found = await ledger.findTopic(ids[0] as string);
    expect(found).toEqual({ turnId: ids[0], clusterId: seedTopic?.id, compactionId: again.id });
    const line = (await sessionHistory(ledger, session.id)).map((turn) => turn.id);
    expect(line.filter((id) => [compaction.id, flat.id, again.id].includes(id))).toEqual([compaction.id, flat.id, again.id]);
  });

  it('topics list every vocabulary word under its own topic only', () => {
    // Guards the fixture the tests above rely on: no word belongs to two topics.
    const words = TOPIC_NAMES.flatMap((name) => TOPIC_VOCABULARY[name]);
    expect(new Set(words).size).toBe(words.length);
    for (const name of TOPIC_NAMES) expect(topicText(name, 5)).toContain(TOPIC_VOCABULARY[name][0]);
  });
});
