// The copy part of the store contract: `copyLedger` moves every row a store holds into an empty
// store of the same engine (the CLI test crosses engines), ids and hashes kept, in an order the
// target's keys accept (a fork after its fork point, a forest after its compaction, a link after
// its event), a few rows at a time; a target holding anything is refused untouched. Through the
// async interface only: what the copy holds is compared with everything the source answers.

import { afterEach, describe, expect, it } from 'vitest';
import {
  type CopyLedgerProgress,
  copyLedger,
  type EventRecord,
  type EventTail,
  type LedgerStore,
  type TurnRecord,
} from '../index.ts';
import { appendRows, clusterRecord, sessionRecord, turnRecord } from './ledger-rows.ts';
import type { StoreUnderTest } from './run-store-contract.ts';

function eventRecord(channel: string, externalId: string, tail: EventTail | null): EventRecord {
  const seq = (tail?.seq ?? 0) + 1;
  const record = {
    id: `e-${channel}-${externalId}`,
    channel,
    externalId,
    author: externalId === '1' ? null : 'ada',
    kind: 'message',
    // Bytes a re-encoding would change: key order, spacing, escapes.
    payload: `{"z":1,  "a":"${externalId} \\u00e9 <b>"}`,
    occurredAt: 1_000 + seq,
    receivedAt: 2_000 + seq,
    seq,
    prevHash: tail?.hash ?? null,
    searchText: `deploy ${channel} ${externalId}`,
  };
  return { ...record, hash: `h(${record.id}<-${record.prevHash ?? '∅'})` };
}

async function appendEventsTo(store: LedgerStore, channel: string, externalIds: string[]): Promise<EventRecord[]> {
  const appended = await store.appendEvents({
    events: externalIds.map((externalId) => ({ channel, externalId })),
    seal: (index, tail) => eventRecord(channel, externalIds[index] as string, tail),
  });
  return appended.map((event) => event.record);
}

function compaction(
  id: string,
  parent: TurnRecord,
  through: TurnRecord,
  strategy: 'flat' | 'union-find',
  previous: string | null,
) {
  return turnRecord(id, parent.sessionId, parent, {
    turnType: 'compaction',
    role: null,
    content: null,
    summary: `summary ${id}`,
    searchText: `summary ${id}`,
    strategy,
    trigger: 'manual',
    summarizer: 'extractive',
    summarizedThroughTurnId: through.id,
    summarizedThroughDepth: through.depth,
    firstKeptTurnId: null,
    coversFromDepth: 0,
    previousCompactionId: previous,
    tokensBefore: 100,
    tokensAfter: 20,
    metadata: { topics: [] },
    cumulativeTokens: parent.cumulativeTokens,
  });
}

/** Appends `count` normal turns to `sessionId` after `after` (its head, or its fork point); returns them. */
async function moreTurns(
  store: LedgerStore,
  sessionId: string,
  after: TurnRecord,
  count: number,
  prefix: string,
): Promise<TurnRecord[]> {
  const turns: TurnRecord[] = [];
  for (let index = 0; index < count; index += 1) {
    turns.push(
      turnRecord(`${prefix}${index}`, sessionId, turns.at(-1) ?? after, {
        role: index % 2 === 0 ? 'user' : 'assistant',
        metadata: { author: 'ada', nested: { b: 2, a: 1 } },
      }),
    );
  }
  await appendRows(store, sessionId, after, turns);
  return turns;
}

/**
 * Root `r` (flat compaction, a transcript source), root `s` (links to events, two union-find
 * compactions with forests, settings learned later), fork `f` of `s` after its first compaction
 * (a forest continuing s's), fork `g` of `f`, and an empty fork `e` of `s`; topic drops in s and f,
 * embeddings of two models, events on two channels.
 */
async function buildLedger(store: LedgerStore): Promise<void> {
  const eng = await appendEventsTo(store, 'slack:#eng', ['1', '2', '3']);
  await appendEventsTo(store, 'mail', ['a', 'b']);

  await store.insertSession(sessionRecord('r', { createdAt: 500, label: 'root r', compactionStrategy: 'flat' }));
  const rTurns: TurnRecord[] = [];
  for (let depth = 0; depth < 4; depth += 1) rTurns.push(turnRecord(`r-t${depth}`, 'r', rTurns.at(-1) ?? null));
  await appendRows(store, 'r', null, rTurns);
  const rc = compaction('r-c1', rTurns[3] as TurnRecord, rTurns[1] as TurnRecord, 'flat', null);
  await appendRows(store, 'r', rTurns[3] as TurnRecord, [rc]);
  const rAfter = await moreTurns(store, 'r', rc, 2, 'r-after-');
  await store.insertTranscriptSource({ key: 'cc:r', format: 'claude-code', sessionId: 'r', path: '/tmp/r.jsonl', importedAt: 7 });
  await store.recordTranscriptLines('cc:r', [
    { lineId: 'header', turnId: null },
    { lineId: 'l1', turnId: 'r-t0' },
    { lineId: 'l2', turnId: 'r-t1' },
    { lineId: 'l3', turnId: (rAfter[1] as TurnRecord).id },
  ]);
  await store.insertTranscriptSource({ key: 'pi:r', format: 'pi', sessionId: 'r', path: null, importedAt: 8 });

  await store.insertSession(sessionRecord('s', { createdAt: 1_000, compactionStrategy: 'union-find' }));
  const sTurns: TurnRecord[] = [];
  for (let depth = 0; depth < 5; depth += 1) sTurns.push(turnRecord(`s-t${depth}`, 's', sTurns.at(-1) ?? null));
  await store.appendToSession({
    sessionId: 's',
    expectedHeadTurnId: null,
    turns: sTurns,
    eventLinks: [
      { turnId: 's-t1', eventId: (eng[0] as EventRecord).id },
      { turnId: 's-t1', eventId: (eng[1] as EventRecord).id },
      { turnId: 's-t3', eventId: 'e-mail-b' },
    ],
  });
  const [t0, t1, t2] = sTurns as [TurnRecord, TurnRecord, TurnRecord];
  const c1 = compaction('s-c1', sTurns[4] as TurnRecord, t1, 'union-find', null);
  const afterC1 = turnRecord('s-after-c1', 's', c1);
  await store.transaction(async (tx) => {
    await appendRows(tx, 's', sTurns[4] as TurnRecord, [c1, afterC1]);
    await tx.writeForest({
      state: {
        compactionId: c1.id,
        sessionId: 's',
        previousCompactionId: null,
        seedCompactionId: null,
        config: { mergeThreshold: 0.15, maxClusters: 10 },
        clock: 2,
        documentCount: 2,
        changedTerms: { alpha: 1, beta: 2 },
      },
      nodes: [
        { nodeId: t0.id, parentId: t0.id, kind: 'graduated' },
        { nodeId: t1.id, parentId: t1.id, kind: 'graduated' },
      ],
      clusters: [clusterRecord(t0.id, 0), clusterRecord(t1.id, 1, { dropped: true, dirty: true, pending: [t1.id] })],
    });
  });
  const c2 = compaction('s-c2', afterC1, t2, 'union-find', c1.id);
  await store.transaction(async (tx) => {
    await appendRows(tx, 's', afterC1, [c2]);
    await tx.writeForest({
      state: {
        compactionId: c2.id,
        sessionId: 's',
        previousCompactionId: c1.id,
        seedCompactionId: null,
        config: { mergeThreshold: 0.15, maxClusters: 10 },
        clock: 3,
        documentCount: 3,
        changedTerms: { alpha: 2, gamma: 1 },
      },
      nodes: [
        { nodeId: t2.id, parentId: t2.id, kind: 'graduated' },
        { nodeId: t1.id, parentId: t0.id, kind: 'merged' },
      ],
      clusters: [clusterRecord(t0.id, 0, { members: 2, absorbedSummaries: ['old'] }), clusterRecord(t2.id, 1)],
    });
  });
  const sTail = await moreTurns(store, 's', c2, 3, 's-tail-');
  await store.updateSessionSettings('s', {
    contextWindow: 64_000,
    reserveTokens: 2_000,
    keepRecentTokens: 3_000,
    calibration: { ratio: 1.25, samples: 3 },
  });
  await store.recordTopicDrop({ sessionId: 's', clusterId: t0.id, dropped: true, at: 10 });
  await store.recordTopicDrop({ sessionId: 's', clusterId: t2.id, dropped: true, at: 11 });
  await store.recordTopicDrop({ sessionId: 's', clusterId: t0.id, dropped: false, at: 12 });

  // f forks s after its first compaction; its forest continues c1's (a lineage of its own).
  await store.insertSession(
    sessionRecord('f', { createdAt: 2_000, parentSessionId: 's', forkedFromTurnId: afterC1.id, headTurnId: afterC1.id }),
  );
  await store.recordTopicDrop({ sessionId: 'f', clusterId: t1.id, dropped: true, at: 13 });
  const fTurns = await moreTurns(store, 'f', afterC1, 2, 'f-t');
  const f1 = compaction('f-c1', fTurns[1] as TurnRecord, fTurns[0] as TurnRecord, 'union-find', c1.id);
  await store.transaction(async (tx) => {
    await appendRows(tx, 'f', fTurns[1] as TurnRecord, [f1]);
    await tx.writeForest({
      state: {
        compactionId: f1.id,
        sessionId: 'f',
        previousCompactionId: c1.id,
        seedCompactionId: null,
        config: { mergeThreshold: 0.15, maxClusters: 10 },
        clock: 4,
        documentCount: 5,
        changedTerms: { gamma: 5, delta: 1 },
      },
      nodes: [{ nodeId: (fTurns[0] as TurnRecord).id, parentId: t0.id, kind: 'graduated' }],
      clusters: [clusterRecord(t0.id, 0, { members: 3 })],
    });
  });
  const fTail = await moreTurns(store, 'f', f1, 2, 'f-tail-');

  await store.insertSession(
    sessionRecord('g', {
      createdAt: 3_000,
      parentSessionId: 'f',
      forkedFromTurnId: (fTail[0] as TurnRecord).id,
      headTurnId: (fTail[0] as TurnRecord).id,
      rebuildFromRaw: true,
      ignoreCompactionsThroughDepth: (fTail[0] as TurnRecord).depth,
    }),
  );
  await moreTurns(store, 'g', fTail[0] as TurnRecord, 1, 'g-t');
  await store.insertSession(
    sessionRecord('e', { createdAt: 4_000, parentSessionId: 's', forkedFromTurnId: t2.id, headTurnId: t2.id }),
  );

  await store.putTurnEmbeddings('model-a', [
    { turnId: 's-t0', vector: new Float32Array([0.5, -1.25, 3]) },
    { turnId: (sTail[0] as TurnRecord).id, vector: new Float32Array([1, 2, 3]) },
    { turnId: 'r-t0', vector: new Float32Array([0, 0, 1e-7]) },
  ]);
  await store.putTurnEmbeddings('model-b', [{ turnId: 's-t0', vector: new Float32Array([9, 8]) }]);
}

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
    integrity: await store.forestIntegrityFindings(),
    current: await store.currentForestCompactions(),
  };
}

export function copyContract(subject: StoreUnderTest): void {
  describe('copying a ledger (copyLedger)', () => {
    const opened: LedgerStore[] = [];
    const open = async () => {
      const store = await subject.open();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

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
