// The copy part of the store contract: `copyLedger` moves every row a store holds into an empty
// store of the same engine (the CLI test crosses engines), ids and hashes kept, in an order the
// target's keys accept (a fork after its fork point, a forest after its compaction, a link after
// its event), a few rows at a time; a target holding anything is refused untouched. Through the
// async interface only: what the copy holds is compared with everything the source answers.

import { describe, expect, it } from 'vitest';
import { type CopyLedgerProgress, copyLedger, type EventRecord, type LedgerStore, type TurnRecord } from '../index.ts';
import { appendEventsTo, buildLedger } from './copy-ledger-rows.ts';
import { sessionRecord, turnRecord } from './ledger-rows.ts';
import { openPerCase } from './open-per-case.ts';
import type { StoreUnderTest } from './store-under-test.ts';

/** Everything a store answers about its rows, through the interface (positions aside). */
async function everything(store: LedgerStore) {
  const sessions = await store.listSessions({ limit: 1_000, offset: 0 });
  const turns = [];
  for (const session of sessions) {
    turns.push(...(await store.chainPage({ sessionId: session.id, fromDepth: 0, toDepth: 1_000_000 })));
  }
  const turnIds = turns.map((turn) => turn.id);
  const forests = [];
  for (const turn of turns.filter((candidate) => candidate.turnType === 'compaction')) {
    const frequencies = await store.documentFrequencies(turn.id, ['alpha', 'beta', 'gamma', 'delta', 'none']);
    forests.push({
      id: turn.id,
      state: await store.getForestState(turn.id),
      nodes: await store.forestNodes(turn.id),
      clusters: await store.forestClusters(turn.id),
      frequencies: frequencies && {
        documentCount: frequencies.documentCount,
        terms: Object.fromEntries(frequencies.frequencies),
      },
    });
  }
  const events: Record<string, EventRecord[]> = {};
  for (const channel of await store.eventChannels()) events[channel] = await store.eventPage({ channel, limit: 1_000 });
  const sources = await store.transcriptSourcePage({ limit: 1_000 });
  const lines: Record<string, unknown> = {};
  for (const source of sources) lines[source.key] = await store.transcriptLinePage(source.key, { limit: 1_000 });
  const dropped: Record<string, string[]> = {};
  for (const session of sessions) dropped[session.id] = await store.droppedTopics(session.id);
  const search = await store.searchTurns({ match: { words: ['summary'], mode: 'any' }, view: 'raw', limit: 100 });
  return {
    sessions,
    turns,
    links: Object.fromEntries(await store.eventIdsByTurn(turnIds)),
    forests,
    events,
    tails: Object.fromEntries(
      await Promise.all(Object.keys(events).map(async (channel) => [channel, await store.channelTail(channel)])),
    ),
    citing: await store.turnsCitingEvent('e-slack:#eng-1'),
    sources,
    lines,
    drops: (await store.topicDropPage({ limit: 1_000 })).map(({ position: _position, ...drop }) => drop),
    dropped,
    embeddings: (await store.turnEmbeddingPage({ limit: 1_000 })).map((embedding) => ({
      ...embedding,
      vector: [...embedding.vector],
    })),
    count: await store.countTurns(),
    search: search.hits.map((hit) => hit.turnId).sort(),
    integrity: await store.forestIntegrityFindings({ forestStrategies: ['union-find'] }),
    current: await store.currentForestCompactions(),
  };
}

export function copyContract(subject: StoreUnderTest): void {
  describe('copying a ledger (copyLedger)', () => {
    const open = openPerCase(subject);

    it('copies every row with its ids, a few rows at a time, forks after their fork points', async () => {
      const source = await open();
      const target = await open();
      await buildLedger(source);
      const progress: CopyLedgerProgress[] = [];
      // Pages of 2: every session, channel, source and scan spans several pages.
      const counts = await copyLedger(source, target, { pageSize: 2, onProgress: (step) => progress.push(step) });
      const original = await everything(source);
      expect(await everything(target)).toEqual(original);
      expect(original.sessions).toHaveLength(5);
      expect(original.forests.filter((forest) => forest.state)).toHaveLength(3);
      expect(counts).toEqual({
        channels: 2,
        events: 5,
        sessions: 5,
        turns: original.turns.length,
        compactions: 4,
        eventLinks: 3,
        forests: 3,
        topicDrops: 4,
        transcriptSources: 2,
        transcriptLines: 4,
        embeddings: 4,
      });
      expect(progress.at(-1)).toEqual({ stage: 'done', copied: counts, totalTurns: original.turns.length });
      const turnsSeen = progress.map((step) => step.copied.turns);
      expect(turnsSeen).toEqual([...turnsSeen].sort((a, b) => a - b));
      expect(progress.filter((step) => step.stage === 'sessions').length).toBeGreaterThan(5);
      // The copy is a ledger like any other: it takes the next turn on each head and event on each tail.
      const head = original.sessions.find((session) => session.id === 's')?.headTurnId as string;
      const next = turnRecord('s-next', 's', original.turns.find((turn) => turn.id === head) as TurnRecord);
      expect(await target.appendToSession({ sessionId: 's', expectedHeadTurnId: head, turns: [next] })).toEqual({
        written: true,
      });
      expect((await appendEventsTo(target, 'mail', ['c']))[0]?.seq).toBe(3);
    });

    it('copies an empty ledger into an empty one', async () => {
      const source = await open();
      const target = await open();
      const counts = await copyLedger(source, target);
      expect(Object.values(counts).every((count) => count === 0)).toBe(true);
      expect(await target.listSessions({ limit: 10, offset: 0 })).toEqual([]);
    });

    it('refuses a target holding sessions or events, and writes nothing into it', async () => {
      const source = await open();
      await buildLedger(source);
      const withSession = await open();
      await withSession.insertSession(sessionRecord('mine'));
      await expect(copyLedger(source, withSession)).rejects.toThrow(/already holds sessions.*empty ledger only/);
      expect((await withSession.listSessions({ limit: 10, offset: 0 })).map((session) => session.id)).toEqual(['mine']);
      expect(await withSession.eventChannels()).toEqual([]);

      const withEvents = await open();
      await appendEventsTo(withEvents, 'mail', ['a']);
      await expect(copyLedger(source, withEvents)).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'to' });
      expect(await withEvents.listSessions({ limit: 10, offset: 0 })).toEqual([]);
      expect(await withEvents.eventPage({ channel: 'mail', limit: 10 })).toHaveLength(1);
    });
  });
}
