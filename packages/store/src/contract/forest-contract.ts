// The forest part of the store contract: a compaction's forest is written once and read back as
// written; one compaction's clusters and the document frequencies of a few terms are read without
// the rest of its chain, and a fork's forest sees its source's statistics up to where it continues
// them, never the source's later ones; a session's drops are decided by the newest row per topic.
// Integrity findings hold the engine to the strategies its caller names as writing a forest: it
// names none of its own.

import { describe, expect, it } from 'vitest';
import type { ForestClusterRecord, ForestStore, ForestWrite } from '../forest-store.ts';
import type { LedgerStore, TurnRecord } from '../index.ts';
import { appendRows, clusterRecord, sessionRecord, sessionWithTurns, turnRecord } from './ledger-rows.ts';
import { type OpenStore, openPerCase } from './open-per-case.ts';
import type { StoreUnderTest } from './store-under-test.ts';

type Write = Parameters<ForestStore['writeForest']>[0];

function compactionTurn(id: string, sessionId: string, parent: TurnRecord, through: TurnRecord): TurnRecord {
  return turnRecord(id, sessionId, parent, {
    turnType: 'compaction',
    role: null,
    content: null,
    summary: `compaction ${id}`,
    searchText: `compaction ${id}`,
    strategy: 'union-find',
    summarizedThroughTurnId: through.id,
    summarizedThroughDepth: through.depth,
    metadata: { topics: [] },
    cumulativeTokens: parent.cumulativeTokens,
  });
}

/** A forest's rows besides its compaction: the forest it continues, its statistics, its nodes and clusters. */
interface ForestRows {
  previous: string | null;
  changedTerms: Record<string, number>;
  documentCount: number;
  nodes?: Write['nodes'];
  clusters?: ForestClusterRecord[];
}

function forestWrite(
  compaction: TurnRecord,
  { previous, changedTerms, documentCount, nodes = [], clusters = [] }: ForestRows,
): ForestWrite {
  return {
    state: {
      compactionId: compaction.id,
      sessionId: compaction.sessionId,
      previousCompactionId: previous,
      seedCompactionId: null,
      config: { mergeThreshold: 0.15, maxClusters: 10, maxCentroidTerms: 256 },
      clock: documentCount,
      documentCount,
      changedTerms,
    },
    nodes,
    clusters,
  };
}

/**
 * Session s: t0..t5, compaction c1 (graduates t0, t1), t6, c2 (graduates t2; merges t1 into t0),
 * t7, c3 (graduates t3). Each writes its forest in the transaction appending it.
 */
async function sessionWithForests(store: LedgerStore) {
  const turns = await sessionWithTurns(store, 's', 6);
  const [t0, t1, t2, t3] = turns as [TurnRecord, TurnRecord, TurnRecord, TurnRecord];
  let head = turns.at(-1) as TurnRecord;
  const compactions: TurnRecord[] = [];
  const steps: Array<{ through: TurnRecord; write: (c: TurnRecord, previous: string | null) => ForestWrite }> = [
    {
      through: t1,
      write: (c, previous) =>
        forestWrite(c, {
          previous,
          changedTerms: { alpha: 1, beta: 2 },
          documentCount: 2,
          nodes: [
            { nodeId: t0.id, parentId: t0.id, kind: 'graduated' },
            { nodeId: t1.id, parentId: t1.id, kind: 'graduated' },
          ],
          clusters: [clusterRecord(t0.id, 0), clusterRecord(t1.id, 1, { dropped: true, dirty: true, pending: [t1.id] })],
        }),
    },
    {
      through: t2,
      write: (c, previous) =>
        forestWrite(c, {
          previous,
          changedTerms: { alpha: 2, gamma: 1 },
          documentCount: 3,
          nodes: [
            { nodeId: t2.id, parentId: t2.id, kind: 'graduated' },
            { nodeId: t1.id, parentId: t0.id, kind: 'merged' },
          ],
          clusters: [clusterRecord(t0.id, 0, { members: 2 }), clusterRecord(t2.id, 1)],
        }),
    },
    {
      through: t3,
      write: (c, previous) =>
        forestWrite(c, {
          previous,
          changedTerms: { beta: 3 },
          documentCount: 4,
          nodes: [{ nodeId: t3.id, parentId: t0.id, kind: 'graduated' }],
        }),
    },
  ];
  for (const [index, step] of steps.entries()) {
    const compaction = compactionTurn(`c${index + 1}`, 's', head, step.through);
    const raw = turnRecord(`s-after-c${index + 1}`, 's', compaction);
    const previous = compactions.at(-1)?.id ?? null;
    await store.transaction(async (tx) => {
      await appendRows(tx, 's', head, [compaction, raw]);
      await tx.writeForest(step.write(compaction, previous));
    });
    compactions.push(compaction);
    head = raw;
  }
  return { turns, compactions, head };
}

export function forestContract(subject: StoreUnderTest): void {
  describe('forest', () => {
    const open = openPerCase(subject);
    forestWriteCases(open);
    forestStatisticsCases(open);
    topicDropCases(open);
    forestIntegrityCases(open);
  });
}

/** A forest is written once, with its compaction, and read back as written. */
function forestWriteCases(open: OpenStore): void {
  it('reads a forest back as written: its state, its nodes in order, its clusters in root order', async () => {
    const ledger = await open();
    const { turns, compactions } = await sessionWithForests(ledger);
    const [c1, c2] = compactions as [TurnRecord, TurnRecord];
    const state = await ledger.getForestState(c2.id);
    expect(state).toEqual({
      compactionId: c2.id,
      sessionId: 's',
      previousCompactionId: c1.id,
      seedCompactionId: null,
      config: { mergeThreshold: 0.15, maxClusters: 10, maxCentroidTerms: 256 },
      clock: 3,
      documentCount: 3,
      changedTerms: { alpha: 2, gamma: 1 },
    });
    expect(await ledger.forestNodes(c2.id)).toEqual([
      { nodeId: turns[2]?.id, parentId: turns[2]?.id, kind: 'graduated' },
      { nodeId: turns[1]?.id, parentId: turns[0]?.id, kind: 'merged' },
    ]);
    const clusters = await ledger.forestClusters(c1.id);
    expect(clusters.map((row) => row.rootId)).toEqual([turns[0]?.id, turns[1]?.id]);
    expect(clusters[1]).toEqual(
      clusterRecord(turns[1]?.id as string, 1, { dropped: true, dirty: true, pending: [turns[1]?.id as string] }),
    );
    expect(await ledger.getForestState('nope')).toBeUndefined();
    expect(await ledger.forestClusters('nope')).toEqual([]);
  });

  it('reads a forest chain newest first with its nodes, as the one-by-one reads give it, from any compaction of it', async () => {
    const ledger = await open();
    const { compactions } = await sessionWithForests(ledger);
    const oneByOne = async (id: string | null) => {
      const links = [];
      for (let at = id; at !== null; ) {
        const state = await ledger.getForestState(at);
        if (!state) break;
        links.push({ state, nodes: await ledger.forestNodes(at) });
        at = state.previousCompactionId;
      }
      return links;
    };
    const [c1, c2, c3] = compactions as [TurnRecord, TurnRecord, TurnRecord];
    const chain = await ledger.forestChain(c3.id);
    expect(chain.map((link) => link.state.compactionId)).toEqual([c3.id, c2.id, c1.id]);
    expect(chain).toEqual(await oneByOne(c3.id));
    expect(await ledger.forestChain(c2.id)).toEqual(await oneByOne(c2.id));
    expect((await ledger.forestChain(c1.id)).map((link) => link.nodes.length)).toEqual([2]);
    expect(await ledger.forestChain('nope')).toEqual([]);
  });

  it('writes a forest once: a second write of the same compaction is refused and changes nothing', async () => {
    const ledger = await open();
    const { compactions } = await sessionWithForests(ledger);
    const c3 = compactions[2] as TurnRecord;
    const again = forestWrite(c3, { previous: 'c2', changedTerms: { beta: 99, delta: 1 }, documentCount: 9 });
    await expect(ledger.transaction((tx) => tx.writeForest(again))).rejects.toThrow();
    expect((await ledger.getForestState(c3.id))?.changedTerms).toEqual({ beta: 3 });
    const frequencies = await ledger.documentFrequencies(c3.id, ['beta', 'delta']);
    expect(frequencies?.documentCount).toBe(4);
    expect([...(frequencies?.frequencies ?? [])]).toEqual([['beta', 3]]);
  });
}

/** Document frequencies as of one compaction, a fork's continuing its source's. */
function forestStatisticsCases(open: OpenStore): void {
  it('reads the document frequencies of the asked terms as of one compaction of the chain', async () => {
    const ledger = await open();
    await sessionWithForests(ledger);
    const at = async (compactionId: string) => {
      const read = await ledger.documentFrequencies(compactionId, ['alpha', 'beta', 'gamma', 'absent', 'alpha']);
      return read && { documentCount: read.documentCount, frequencies: Object.fromEntries(read.frequencies) };
    };
    expect(await at('c1')).toEqual({ documentCount: 2, frequencies: { alpha: 1, beta: 2 } });
    expect(await at('c2')).toEqual({ documentCount: 3, frequencies: { alpha: 2, beta: 2, gamma: 1 } });
    expect(await at('c3')).toEqual({ documentCount: 4, frequencies: { alpha: 2, beta: 3, gamma: 1 } });
    expect(await ledger.documentFrequencies('s-t0', ['alpha'])).toBeUndefined();
    expect((await ledger.documentFrequencies('c3', []))?.frequencies.size).toBe(0);
  });

  it("a fork's forest continues its source's statistics up to its fork point, and the source's stay its own", async () => {
    const ledger = await open();
    const { compactions } = await sessionWithForests(ledger);
    const c2 = compactions[1] as TurnRecord;
    // The fork is made at the turn after c2, before c3: its forest continues c2's.
    const forkPoint = turnRecord('s-after-c2', 's', c2);
    await ledger.insertSession(
      sessionRecord('f', { parentSessionId: 's', forkedFromTurnId: forkPoint.id, headTurnId: forkPoint.id }),
    );
    const raw = turnRecord('f-t0', 'f', forkPoint);
    const f1 = compactionTurn('f1', 'f', raw, raw);
    await ledger.transaction(async (tx) => {
      await appendRows(tx, 'f', forkPoint, [raw, f1]);
      await tx.writeForest(forestWrite(f1, { previous: c2.id, changedTerms: { gamma: 5, delta: 1 }, documentCount: 5 }));
    });
    const read = async (compactionId: string) =>
      Object.fromEntries(
        (await ledger.documentFrequencies(compactionId, ['alpha', 'beta', 'gamma', 'delta']))?.frequencies ?? [],
      );
    expect(await read('f1')).toEqual({ alpha: 2, beta: 2, gamma: 5, delta: 1 });
    expect(await read('c3')).toEqual({ alpha: 2, beta: 3, gamma: 1 });
    // A forest continuing the fork's goes on from the fork's statistics.
    const more = turnRecord('f-t1', 'f', f1);
    const f2 = compactionTurn('f2', 'f', more, more);
    await ledger.transaction(async (tx) => {
      await appendRows(tx, 'f', f1, [more, f2]);
      await tx.writeForest(forestWrite(f2, { previous: f1.id, changedTerms: { alpha: 7 }, documentCount: 6 }));
    });
    expect(await read('f2')).toEqual({ alpha: 7, beta: 2, gamma: 5, delta: 1 });
    expect((await ledger.documentFrequencies('f2', []))?.documentCount).toBe(6);
  });
}

/** A session's topic drops. */
function topicDropCases(open: OpenStore): void {
  it("a session's drops: the newest row for a topic decides, and another session's rows do not count", async () => {
    const ledger = await open();
    const turns = await sessionWithTurns(ledger, 's', 3);
    await ledger.insertSession(sessionRecord('other'));
    const [a, b, c] = turns.map((turn) => turn.id) as [string, string, string];
    expect(await ledger.droppedTopics('s')).toEqual([]);
    await ledger.recordTopicDrop({ sessionId: 's', clusterId: a, dropped: true, at: 1 });
    await ledger.recordTopicDrop({ sessionId: 's', clusterId: b, dropped: true, at: 2 });
    await ledger.recordTopicDrop({ sessionId: 's', clusterId: a, dropped: false, at: 3 });
    await ledger.recordTopicDrop({ sessionId: 'other', clusterId: c, dropped: true, at: 4 });
    await ledger.recordTopicDrop({ sessionId: 's', clusterId: b, dropped: true, at: 5 });
    expect(await ledger.droppedTopics('s')).toEqual([b]);
    expect(await ledger.droppedTopics('other')).toEqual([c]);
    await ledger.recordTopicDrop({ sessionId: 's', clusterId: a, dropped: true, at: 6 });
    expect([...(await ledger.droppedTopics('s'))].sort()).toEqual([a, b].sort());
  });
}

/** Integrity findings over the stored forests, for the strategies the caller names. */
function forestIntegrityCases(open: OpenStore): void {
  it('finds the forests sessions read today, and no integrity finding in sound forests', async () => {
    const ledger = await open();
    await sessionWithForests(ledger);
    expect(await ledger.forestIntegrityFindings({ forestStrategies: ['union-find'] })).toEqual([]);
    expect(await ledger.currentForestCompactions()).toEqual([{ compactionId: 'c3', metadata: { topics: [] } }]);
  });

  it('reports a union-find compaction without a forest and a node past what its compaction summarized', async () => {
    const ledger = await open();
    const turns = await sessionWithTurns(ledger, 's', 4);
    const [t0, , , t3] = turns as [TurnRecord, TurnRecord, TurnRecord, TurnRecord];
    const c1 = compactionTurn('c1', 's', t3, t0);
    const after = turnRecord('s-t5', 's', c1);
    const c2 = compactionTurn('c2', 's', after, t0);
    await ledger.transaction(async (tx) => {
      await appendRows(tx, 's', t3, [c1, after, c2]);
      // c1 summarized through t0 but its forest holds t3 (after the cut); c2 has no forest.
      await tx.writeForest(
        forestWrite(c1, {
          previous: null,
          changedTerms: { alpha: 1 },
          documentCount: 1,
          nodes: [{ nodeId: t3.id, parentId: t3.id, kind: 'graduated' }],
        }),
      );
    });
    expect(await ledger.forestIntegrityFindings({ forestStrategies: ['union-find'] })).toEqual([
      { code: 'FOREST_MISSING', compactionId: 'c2', nodeId: null },
      { code: 'NODE_NOT_COVERED', compactionId: 'c1', nodeId: t3.id },
    ]);
  });

  it('names no strategy of its own: the compactions that write a forest are the ones the caller names', async () => {
    const ledger = await open();
    const { turns, compactions, head } = await sessionWithForests(ledger);
    // c4, a union-find compaction after the three with forests, has none.
    const c4 = compactionTurn('c4', 's', head, turns[4] as TurnRecord);
    await appendRows(ledger, 's', head, [c4]);
    expect(await ledger.forestIntegrityFindings({ forestStrategies: ['union-find'] })).toEqual([
      { code: 'FOREST_MISSING', compactionId: 'c4', nodeId: null },
    ]);
    // Some other strategy named: each stored forest is under a compaction that writes none, and c4 misses nothing.
    expect(await ledger.forestIntegrityFindings({ forestStrategies: ['some-other-strategy'] })).toEqual(
      compactions.map((compaction) => ({ code: 'FOREST_WITHOUT_COMPACTION', compactionId: compaction.id, nodeId: null })),
    );
    // Named none: no compaction is missing a forest.
    const unnamed = await ledger.forestIntegrityFindings({ forestStrategies: [] });
    expect(unnamed.filter((finding) => finding.code === 'FOREST_MISSING')).toEqual([]);
  });
}
