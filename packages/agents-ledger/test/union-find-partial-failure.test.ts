// A union-find compaction whose summarizer fails for some topics: the compaction is still written,
// the failed topics stay dirty with their members shown raw (nothing they said is lost), and a later
// compaction folds them in. Only when every call fails is nothing written.

import { contentText, SummarizerError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentsLedger } from '../src/index.ts';
import { countRows, openTempLedger, prefixedIds, SMALL_SETTINGS, sessionHistory, type TempLedger } from './builders.ts';
import {
  appendTopics,
  countingSummarizer,
  forestRows,
  metadataOf,
  rawSql,
  requestMentions,
  roundRobinPlan,
  topicMembers,
} from './topic-builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

/** Three topics, compacted once with a summarizer that fails for every prometheus request. */
async function prometheusFails() {
  const summarizer = countingSummarizer({ failWhen: (input) => requestMentions(input, 'prometheus') });
  temp = openTempLedger({ summarizer });
  const { ledger } = temp;
  const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
  const first = await appendTopics(ledger, session.id, roundRobinPlan(6));
  const compaction = await ledger.compact(session.id);
  const topics = await topicMembers(ledger, session.id);
  const failedTopic = topics.find((topic) => topic.members.some((id) => first.topicOf.get(id) === 'prometheus'));
  if (!failedTopic) throw new Error('no prometheus topic');
  return { ledger, session, summarizer, first, compaction, failedTopic };
}

function storedBlock(ledger: AgentsLedger, compactionId: string, topicId: string): string {
  const row = rawSql(ledger)
    .prepare('SELECT block FROM forest_clusters WHERE compaction_id = ? AND root_id = ?')
    .get(compactionId, topicId) as { block: string } | undefined;
  if (!row) throw new Error(`no stored topic ${topicId} in ${compactionId}`);
  return row.block;
}

async function textOf(ledger: AgentsLedger, turnId: string): Promise<string> {
  const turn = await ledger.getTurn(turnId);
  if (turn.turnType !== 'normal') throw new Error(`${turnId} is not a normal turn`);
  return contentText(turn.content);
}

describe('a summarizer failing for one topic', () => {
  it('still writes the compaction, with that topic dirty and its members shown as raw lines', async () => {
    const { ledger, session, summarizer, compaction, failedTopic } = await prometheusFails();
    expect(summarizer.calls).toHaveLength(3);
    expect(summarizer.failures).toHaveLength(1);
    expect(metadataOf(compaction).unsummarizedTopics).toEqual([failedTopic.id]);
    expect(metadataOf(compaction).summarizerCalls).toBe(3);

    const topics = await ledger.topics(session.id);
    for (const topic of topics) {
      if (topic.id === failedTopic.id) expect(topic).toMatchObject({ dirty: true, summary: null, summaryVersion: 0 });
      else expect(topic).toMatchObject({ dirty: false, summaryVersion: 1 });
    }
    // The failed topic's block lists every member as `[id] text`; a context asking about it shows them.
    const block = storedBlock(ledger, compaction.id, failedTopic.id);
    expect(block.split('\n')[0]).toContain(`${failedTopic.members.length} not summarized yet`);
    const context = await ledger.buildContext(compaction.id, { query: 'prometheus grafana scrape' });
    expect(context.topics.map((topic) => topic.id)).toContain(failedTopic.id);
    expect(context.system).toContain(block);
    for (const member of failedTopic.members) {
      const line = `[${member}] ${await textOf(ledger, member)}`;
      expect(block.split('\n')).toContain(line);
    }
    expect(await ledger.doctor()).toEqual([]);
  });

  it('the next compaction with a working summarizer folds the pending members in', async () => {
    const { ledger, session, summarizer, first, failedTopic } = await prometheusFails();
    summarizer.failWhen = undefined;
    summarizer.reset();
    await appendTopics(ledger, session.id, roundRobinPlan(3), first.ids.length);
    const second = await ledger.compact(session.id);
    expect(metadataOf(second).unsummarizedTopics).toBeUndefined();
    for (const topic of await ledger.topics(session.id)) {
      expect(storedBlock(ledger, second.id, topic.id)).not.toContain('not summarized yet');
    }

    const call = summarizer.calls.find((candidate) => candidate.turns.some((turn) => turn.id === failedTopic.members[0]));
    if (!call) throw new Error('the failed topic was not summarized again');
    // Its old members go again (they were never summarized), with their text, oldest first.
    expect(call.previousSummary).toBeUndefined();
    const sent = call.turns.map((turn) => turn.id);
    expect(sent.slice(0, failedTopic.members.length)).toEqual(failedTopic.members);
    for (const turn of call.turns.slice(0, failedTopic.members.length)) expect(turn.text).toBe(await textOf(ledger, turn.id));
    const after = (await ledger.topics(session.id)).find((topic) => topic.id === failedTopic.id);
    expect(after).toMatchObject({ dirty: false, summaryVersion: 1, compactionId: second.id });
    expect(after?.summary).toEqual(expect.any(String));
    expect(await ledger.doctor()).toEqual([]);
  });

  it('a reopened ledger reads the pending members back from the file and summarizes them', async () => {
    const { session, first, failedTopic, ledger } = await prometheusFails();
    const working = countingSummarizer();
    const reopened = temp.reopen({ summarizer: working, generateId: prefixedIds('r') });
    ledger.close();
    await appendTopics(reopened, session.id, roundRobinPlan(3), first.ids.length);
    await reopened.compact(session.id);
    const call = working.calls.find((candidate) => candidate.turns.some((turn) => turn.id === failedTopic.members[0]));
    if (!call) throw new Error('the failed topic was not summarized again');
    for (const member of failedTopic.members) {
      const sent = call.turns.find((turn) => turn.id === member);
      expect(sent?.text, member).toBe(await textOf(reopened, member));
    }
    expect((await reopened.topics(session.id)).every((topic) => !topic.dirty)).toBe(true);
    expect(await reopened.doctor()).toEqual([]);
  });
});

describe('a summarizer failing for every topic', () => {
  it('makes the first compaction throw SummarizerError and write nothing', async () => {
    const summarizer = countingSummarizer({ failWhen: () => true });
    temp = openTempLedger({ summarizer });
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    await appendTopics(ledger, session.id, roundRobinPlan(6));
    const before = {
      session: await ledger.getSession(session.id),
      history: await sessionHistory(ledger, session.id),
      turns: countRows(ledger, 'agent_turns'),
      forest: forestRows(ledger),
    };
    const error = await ledger.compact(session.id).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SummarizerError);
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED', summarizer: 'counting' });
    // One call per topic was tried before giving up.
    expect(summarizer.calls).toHaveLength(3);
    expect({
      session: await ledger.getSession(session.id),
      history: await sessionHistory(ledger, session.id),
      turns: countRows(ledger, 'agent_turns'),
      forest: forestRows(ledger),
    }).toEqual(before);
    expect(before.forest.forest_states).toEqual([]);
    expect(await ledger.topics(session.id)).toEqual([]);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('wraps a failure that is not a LedgerError in a SummarizerError naming the summarizer', async () => {
    let calls = 0;
    temp = openTempLedger({
      summarizer: {
        name: 'flaky',
        async summarize(input) {
          calls += input.turns.length > 0 ? 1 : 0;
          throw new TypeError('socket hang up');
        },
      },
    });
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    await appendTopics(ledger, session.id, roundRobinPlan(6));
    const error = await ledger.compact(session.id).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SummarizerError);
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED', summarizer: 'flaky' });
    expect((error as Error).message).toContain('socket hang up');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(calls).toBe(3);
    expect(countRows(ledger, 'agent_turns')).toBe(36);
  });
});
