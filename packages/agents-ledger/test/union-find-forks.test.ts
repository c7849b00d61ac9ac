// Forks of a session compacted with union-find: a fork that compacts writes a forest of its own on
// top of the one it inherited, and neither side's topics move when the other compacts.

import { afterEach, describe, expect, it } from 'vitest';
import type { AgentsLedger } from '../src/index.ts';
import { normalIds, openTempLedger, SMALL_SETTINGS, type TempLedger } from './builders.ts';
import { appendTopics, forestRows, rawSql, roundRobinPlan, type TopicName, topicMembers } from './topic-builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

async function topicState(ledger: AgentsLedger, sessionId: string) {
  const head = (await ledger.getSession(sessionId)).headTurnId as string;
  return {
    topics: await ledger.topics(sessionId),
    members: await topicMembers(ledger, sessionId),
    context: await ledger.buildContext(head, { sessionId, query: 'postgres replica vacuum' }),
  };
}

/** Forest rows written by the given compactions (drops aside). */
function rowsOf(ledger: AgentsLedger, compactionIds: readonly string[]) {
  const rows = forestRows(ledger);
  const mine = (row: unknown) => compactionIds.includes((row as { compaction_id: string }).compaction_id);
  return {
    states: rows.forest_states.filter(mine),
    nodes: rows.forest_nodes.filter(mine),
    clusters: rows.forest_clusters.filter(mine),
  };
}

/** A union-find session compacted once, then a fork at its head that talks about backups only. */
async function forkedAfterCompaction() {
  temp = openTempLedger();
  const { ledger } = temp;
  const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
  const first = await appendTopics(ledger, session.id, roundRobinPlan(6));
  const sourceCompaction = await ledger.compact(session.id);
  const tail = await appendTopics(ledger, session.id, roundRobinPlan(1), 36);
  const forkPoint = tail.ids.at(-1) as string;
  const sourceBefore = await topicState(ledger, session.id);
  const rowsBefore = rowsOf(ledger, [sourceCompaction.id]);
  const fork = await ledger.forkFrom(forkPoint, { label: 'backups only' });
  const own = await appendTopics(ledger, fork.session.id, Array<TopicName>(24).fill('backups'), 200);
  const forkCompaction = await ledger.compact(fork.session.id);
  const topicOf = new Map([...first.topicOf, ...tail.topicOf, ...own.topicOf]);
  return { ledger, session, fork, sourceCompaction, forkCompaction, sourceBefore, rowsBefore, topicOf, own };
}

describe('union-find forks', () => {
  it('a fork compacting on its own leaves the source topics and forest as they were', async () => {
    const { ledger, session, fork, sourceCompaction, forkCompaction, sourceBefore, rowsBefore } = await forkedAfterCompaction();
    expect(fork.baseCompactionId).toBe(sourceCompaction.id);
    expect(forkCompaction.strategy).toBe('union-find');
    expect(forkCompaction.sessionId).toBe(fork.session.id);
    expect(await topicState(ledger, session.id)).toEqual(sourceBefore);
    expect(rowsOf(ledger, [sourceCompaction.id])).toEqual(rowsBefore);
    // The fork's forest continues the source's: it wrote rows of its own, under its compaction.
    const forkState = rawSql(ledger)
      .prepare('SELECT previous_compaction_id AS previous, session_id AS sessionId FROM forest_states WHERE compaction_id = ?')
      .get(forkCompaction.id);
    expect(forkState).toEqual({ previous: sourceCompaction.id, sessionId: fork.session.id });
    expect(await ledger.doctor()).toEqual([]);
  });

  it("the fork's topics hold the inherited members and its own", async () => {
    const { ledger, session, fork, forkCompaction, topicOf, own } = await forkedAfterCompaction();
    const inherited = (await topicMembers(ledger, session.id)).flatMap((topic) => topic.members);
    const forkTopics = await topicMembers(ledger, fork.session.id);
    const forkMembers = forkTopics.flatMap((topic) => topic.members);
    for (const id of inherited) expect(forkMembers).toContain(id);
    expect(new Set(forkMembers).size).toBe(forkMembers.length);
    const ownSummarized = own.ids.filter((id) => forkMembers.includes(id));
    expect(ownSummarized.length).toBeGreaterThan(0);
    // Still one vocabulary per topic, and the fork's backups joined the inherited backups topic.
    for (const topic of forkTopics) expect(new Set(topic.members.map((id) => topicOf.get(id))).size).toBe(1);
    const backups = forkTopics.find((topic) => topic.members.includes(ownSummarized[0] as string));
    expect(backups?.members.some((id) => inherited.includes(id))).toBe(true);
    for (const id of ownSummarized) {
      expect(await ledger.findTopic(id)).toEqual({ turnId: id, clusterId: backups?.id, compactionId: forkCompaction.id });
    }
    // Seen from the source, the fork's own turns are not on its line.
    expect((await ledger.topics(fork.session.id)).every((topic) => topic.compactionId === forkCompaction.id)).toBe(true);
    expect((await ledger.topics(session.id)).every((topic) => topic.compactionId !== forkCompaction.id)).toBe(true);
  });

  it("compacting the source afterwards leaves the fork's topics as they were", async () => {
    const { ledger, session, fork, forkCompaction } = await forkedAfterCompaction();
    const forkBefore = await topicState(ledger, fork.session.id);
    const forkRowsBefore = rowsOf(ledger, [forkCompaction.id]);
    await appendTopics(ledger, session.id, roundRobinPlan(4, 2, ['postgres', 'prometheus']), 300);
    const sourceAgain = await ledger.compact(session.id);
    expect(sourceAgain.sessionId).toBe(session.id);
    expect(await topicState(ledger, fork.session.id)).toEqual(forkBefore);
    expect(rowsOf(ledger, [forkCompaction.id])).toEqual(forkRowsBefore);
    // And the source's new forest holds none of the fork's turns.
    const sourceMembers = (await topicMembers(ledger, session.id)).flatMap((topic) => topic.members);
    const forkOnly = (await topicMembers(ledger, fork.session.id))
      .flatMap((topic) => topic.members)
      .filter((id) => !sourceMembers.includes(id));
    for (const id of forkOnly) expect((await ledger.getTurn(id)).sessionId).toBe(fork.session.id);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('a fork starts with the source drops and restores a topic without touching the source', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    await appendTopics(ledger, session.id, roundRobinPlan(6));
    const compaction = await ledger.compact(session.id);
    const [dropped] = await ledger.topics(session.id);
    if (!dropped) throw new Error('no topic');
    await ledger.dropTopic(dropped.id);
    const fork = await ledger.forkFrom(compaction.id);
    const inFork = (await ledger.topics(fork.session.id)).find((topic) => topic.id === dropped.id);
    expect(inFork?.dropped).toBe(true);
    await ledger.restoreTopic(dropped.id, { sessionId: fork.session.id });
    expect((await ledger.topics(fork.session.id)).find((topic) => topic.id === dropped.id)?.dropped).toBe(false);
    expect((await ledger.topics(session.id)).find((topic) => topic.id === dropped.id)?.dropped).toBe(true);
    const forkContext = await ledger.buildContext(compaction.id, { sessionId: fork.session.id });
    const sourceContext = await ledger.buildContext(compaction.id);
    expect(forkContext.topics.map((topic) => topic.id)).toContain(dropped.id);
    expect(sourceContext.topics.map((topic) => topic.id)).not.toContain(dropped.id);
  });

  it('a fork at a turn a later compaction summarized extends the forest its fork point saw', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    await appendTopics(ledger, session.id, roundRobinPlan(6));
    const c1 = await ledger.compact(session.id);
    const middle = await appendTopics(ledger, session.id, roundRobinPlan(4), 36);
    const c2 = await ledger.compact(session.id);
    const forkPoint = middle.ids[3] as string;
    expect((await ledger.findCompactionThatSummarized(forkPoint))?.id).toBe(c2.id);
    const sourceBefore = await topicState(ledger, session.id);
    const rowsBefore = rowsOf(ledger, [c1.id, c2.id]);

    const fork = await ledger.forkFrom(forkPoint);
    expect(fork.baseCompactionId).toBe(c1.id);
    await appendTopics(ledger, fork.session.id, Array<TopicName>(20).fill('postgres'), 400);
    const own = await ledger.compact(fork.session.id);
    const state = rawSql(ledger)
      .prepare('SELECT previous_compaction_id AS previous FROM forest_states WHERE compaction_id = ?')
      .get(own.id);
    expect(state).toEqual({ previous: c1.id });
    // Every turn on the fork's line up to its cut is in exactly one of its topics; c2 is not its.
    const members = (await topicMembers(ledger, fork.session.id)).flatMap((topic) => topic.members);
    expect(new Set(members).size).toBe(members.length);
    const line = [];
    for await (const turn of ledger.getFullHistory(own.id)) line.push(turn);
    const through = line.findIndex((turn) => turn.id === own.summarizedThroughTurnId);
    const expected = line.slice(0, through + 1).filter((turn) => turn.turnType === 'normal');
    expect([...members].sort()).toEqual(expected.map((turn) => turn.id).sort());
    expect(line.map((turn) => turn.id)).not.toContain(c2.id);
    expect(await topicState(ledger, session.id)).toEqual(sourceBefore);
    expect(rowsOf(ledger, [c1.id, c2.id])).toEqual(rowsBefore);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('a full fork compacting with union-find grows a forest of its own from the first turn', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    const first = await appendTopics(ledger, session.id, roundRobinPlan(6));
    const inherited = await ledger.compact(session.id);
    const full = await ledger.forkFrom(inherited.id, { full: true });
    expect(await ledger.topics(full.session.id)).toEqual([]);
    await appendTopics(ledger, full.session.id, roundRobinPlan(2), 36);
    const own = await ledger.compact(full.session.id);
    const state = rawSql(ledger)
      .prepare('SELECT previous_compaction_id AS previous FROM forest_states WHERE compaction_id = ?')
      .get(own.id);
    expect(state).toEqual({ previous: null });
    const members = (await topicMembers(ledger, full.session.id)).flatMap((topic) => topic.members);
    expect(members).toContain(first.ids[0]);
    expect(members).not.toContain(inherited.id);
    expect(new Set(members).size).toBe(members.length);
    expect([...members].sort()).toEqual(normalIds(await ledger.getSummarizedTurns(own.id)).sort());
    for (const id of first.ids.slice(0, 3)) {
      const found = await ledger.findTopic(id, { sessionId: full.session.id });
      expect(found.compactionId).toBe(own.id);
      expect(
        (await ledger.expandTopic(found.clusterId as string, { sessionId: full.session.id })).map((turn) => turn.id),
      ).toContain(id);
      // The source still sees the topic of its own compaction.
      expect((await ledger.findTopic(id)).compactionId).toBe(inherited.id);
    }
    expect(await ledger.doctor()).toEqual([]);
  });
});
