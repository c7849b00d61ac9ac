// The ledger the copy part of the store contract copies: every kind of row a store holds, each
// where the target's keys make its order matter (forks after their fork points, forests after their
// compactions, links after their events), and values a re-encoding would change.

import type { EventRecord, EventTail, LedgerStore, TurnRecord } from '../index.ts';
import { appendRows, clusterRecord, sessionRecord, turnRecord } from './ledger-rows.ts';

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

/** Appends events with these external ids to `channel`, continuing its tail; returns their records. */
export async function appendEventsTo(store: LedgerStore, channel: string, externalIds: string[]): Promise<EventRecord[]> {
  const appended = await store.appendEvents({
    events: externalIds.map((externalId) => ({ channel, externalId })),
    seal: (index, tail) => eventRecord(channel, externalIds[index] as string, tail),
  });
  return appended.map((event) => event.record);
}

/** Where a compaction goes (after `parent`), what it summarized and which compaction it follows. */
interface CompactionAt {
  parent: TurnRecord;
  through: TurnRecord;
  strategy: 'flat' | 'union-find';
  previous: string | null;
}

function compaction(id: string, { parent, through, strategy, previous }: CompactionAt) {
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

/** Turns to append: `count` of them, ids `${prefix}${index}`. */
interface MoreTurns {
  sessionId: string;
  after: TurnRecord;
  count: number;
  prefix: string;
}

/** Appends `count` normal turns to `sessionId` after `after` (its head, or its fork point); returns them. */
async function moreTurns(store: LedgerStore, { sessionId, after, count, prefix }: MoreTurns): Promise<TurnRecord[]> {
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
export async function buildLedger(store: LedgerStore): Promise<void> {
  const eng = await appendEventsTo(store, 'slack:#eng', ['1', '2', '3']);
  await appendEventsTo(store, 'mail', ['a', 'b']);
  await flatRoot(store);
  const sTurns = await linkedRoot(store, eng);
  const s = await unionFindCompactions(store, sTurns);
  await forks(store, s);

  await store.putTurnEmbeddings('model-a', [
    { turnId: 's-t0', vector: new Float32Array([0.5, -1.25, 3]) },
    { turnId: (s.sTail[0] as TurnRecord).id, vector: new Float32Array([1, 2, 3]) },
    { turnId: 'r-t0', vector: new Float32Array([0, 0, 1e-7]) },
  ]);
  await store.putTurnEmbeddings('model-b', [{ turnId: 's-t0', vector: new Float32Array([9, 8]) }]);
}

/** Root `r`: a flat compaction, and two transcript sources (one with lines). */
async function flatRoot(store: LedgerStore): Promise<void> {
  await store.insertSession(sessionRecord('r', { createdAt: 500, label: 'root r', compactionStrategy: 'flat' }));
  const rTurns: TurnRecord[] = [];
  for (let depth = 0; depth < 4; depth += 1) rTurns.push(turnRecord(`r-t${depth}`, 'r', rTurns.at(-1) ?? null));
  await appendRows(store, 'r', null, rTurns);
  const rc = compaction('r-c1', {
    parent: rTurns[3] as TurnRecord,
    through: rTurns[1] as TurnRecord,
    strategy: 'flat',
    previous: null,
  });
  await appendRows(store, 'r', rTurns[3] as TurnRecord, [rc]);
  const rAfter = await moreTurns(store, { sessionId: 'r', after: rc, count: 2, prefix: 'r-after-' });
  await store.insertTranscriptSource({ key: 'cc:r', format: 'claude-code', sessionId: 'r', path: '/tmp/r.jsonl', importedAt: 7 });
  await store.recordTranscriptLines('cc:r', [
    { lineId: 'header', turnId: null },
    { lineId: 'l1', turnId: 'r-t0' },
    { lineId: 'l2', turnId: 'r-t1' },
    { lineId: 'l3', turnId: (rAfter[1] as TurnRecord).id },
  ]);
  await store.insertTranscriptSource({ key: 'pi:r', format: 'pi', sessionId: 'r', path: null, importedAt: 8 });
}

/** Root `s`: five turns, two of them citing events; returns them. */
async function linkedRoot(store: LedgerStore, eng: EventRecord[]): Promise<TurnRecord[]> {
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
  return sTurns;
}

/** What the forks of `s` are made from: its first turns, its first compaction and the turn after it. */
interface UnionFindLine {
  t0: TurnRecord;
  t1: TurnRecord;
  t2: TurnRecord;
  c1: TurnRecord;
  afterC1: TurnRecord;
  sTail: TurnRecord[];
}

/** Two union-find compactions of `s` with their forests, then its tail, settings and topic drops. */
async function unionFindCompactions(store: LedgerStore, sTurns: TurnRecord[]): Promise<UnionFindLine> {
  const [t0, t1, t2] = sTurns as [TurnRecord, TurnRecord, TurnRecord];
  const c1 = compaction('s-c1', { parent: sTurns[4] as TurnRecord, through: t1, strategy: 'union-find', previous: null });
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
  const c2 = compaction('s-c2', { parent: afterC1, through: t2, strategy: 'union-find', previous: c1.id });
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
  const sTail = await moreTurns(store, { sessionId: 's', after: c2, count: 3, prefix: 's-tail-' });
  await store.updateSessionSettings('s', {
    contextWindow: 64_000,
    reserveTokens: 2_000,
    keepRecentTokens: 3_000,
    calibration: { ratio: 1.25, samples: 3 },
  });
  await store.recordTopicDrop({ sessionId: 's', clusterId: t0.id, dropped: true, at: 10 });
  await store.recordTopicDrop({ sessionId: 's', clusterId: t2.id, dropped: true, at: 11 });
  await store.recordTopicDrop({ sessionId: 's', clusterId: t0.id, dropped: false, at: 12 });
  return { t0, t1, t2, c1, afterC1, sTail };
}

/** Fork `f` of `s` (with a forest of its own), fork `g` of `f`, and the empty fork `e` of `s`. */
async function forks(store: LedgerStore, { t0, t1, t2, c1, afterC1 }: UnionFindLine): Promise<void> {
  // f forks s after its first compaction; its forest continues c1's (a lineage of its own).
  await store.insertSession(
    sessionRecord('f', { createdAt: 2_000, parentSessionId: 's', forkedFromTurnId: afterC1.id, headTurnId: afterC1.id }),
  );
  await store.recordTopicDrop({ sessionId: 'f', clusterId: t1.id, dropped: true, at: 13 });
  const fTurns = await moreTurns(store, { sessionId: 'f', after: afterC1, count: 2, prefix: 'f-t' });
  const f1 = compaction('f-c1', {
    parent: fTurns[1] as TurnRecord,
    through: fTurns[0] as TurnRecord,
    strategy: 'union-find',
    previous: c1.id,
  });
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
  const fTail = await moreTurns(store, { sessionId: 'f', after: f1, count: 2, prefix: 'f-tail-' });

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
  await moreTurns(store, { sessionId: 'g', after: fTail[0] as TurnRecord, count: 1, prefix: 'g-t' });
  await store.insertSession(
    sessionRecord('e', { createdAt: 4_000, parentSessionId: 's', forkedFromTurnId: t2.id, headTurnId: t2.id }),
  );
}
