// Saving and reloading: state() carries everything a forest needs to go on as if it had never
// stopped, through JSON too; takeChanges() hands out each new parent pointer and term count once.

import { describe, expect, it } from 'vitest';
import { type ForestState, type GraduatingTurn, type GraduationResult, TopicForest } from '../src/index.ts';
import {
  canonicalState,
  expectLedgerError,
  feed,
  graduatingTurn,
  MANUAL_UNIONS,
  mixedTopicTurns,
  recordingSummarizer,
  rootIndices,
  topicText,
  turnsFrom,
} from './helpers.ts';

const CONFIG = { maxClusters: 3, mergeThreshold: 0.2 };

async function summarizedForest(): Promise<TopicForest> {
  const forest = new TopicForest({ config: CONFIG });
  feed(forest, mixedTopicTurns(12));
  await forest.resolveDirty(recordingSummarizer().summarize);
  feed(forest, mixedTopicTurns(3, ['frontend', 'postgres'], 'u'));
  return forest;
}

/** Graduation results with similarities rounded: a reload may change their last bit (see below). */
function comparable(results: GraduationResult[]): GraduationResult[] {
  const round = (similarity: number) => Number(similarity.toFixed(12));
  return results.map((result) => ({
    ...result,
    similarity: round(result.similarity),
    forcedMerges: result.forcedMerges.map((merge) => ({ ...merge, similarity: round(merge.similarity) })),
  }));
}

function allIds(forest: TopicForest): string[] {
  return forest.state().nodes.map((node) => node.id);
}

describe('state and reload', () => {
  it('reloads with the same clusters, config and roots', async () => {
    const forest = await summarizedForest();

    const reloaded = new TopicForest({ state: forest.state() });

    expect(reloaded.clusters()).toEqual(forest.clusters());
    expect(reloaded.config).toEqual(forest.config);
    expect(reloaded.size).toBe(forest.size);
    expect(allIds(reloaded).map((id) => reloaded.find(id))).toEqual(allIds(forest).map((id) => forest.find(id)));
    for (const cluster of forest.clusters()) expect(reloaded.expand(cluster.id)).toEqual(forest.expand(cluster.id));
    expect(reloaded.dirtyClusterIds()).toEqual(forest.dirtyClusterIds());
  });

  it('goes on after a reload exactly as the original does', async () => {
    const forest = await summarizedForest();
    const reloaded = new TopicForest({ state: forest.state() });
    const further = mixedTopicTurns(10, ['kubernetes', 'payments', 'frontend'], 'v');

    expect(comparable(feed(reloaded, further))).toEqual(comparable(feed(forest, further)));
    expect(reloaded.clusters()).toEqual(forest.clusters());
    expect(canonicalState(reloaded.state())).toEqual(canonicalState(forest.state()));

    const originalSummaries = recordingSummarizer();
    const reloadedSummaries = recordingSummarizer();
    await forest.resolveDirty(originalSummaries.summarize);
    await reloaded.resolveDirty(reloadedSummaries.summarize);
    expect(reloadedSummaries.requests).toEqual(originalSummaries.requests);
    expect(reloaded.clusters()).toEqual(forest.clusters());
  });

  it('gives the same state() after a reload as the uninterrupted forest when nothing was merged twice', async () => {
    const forest = new TopicForest();
    feed(forest, turnsFrom([topicText('postgres', 0), topicText('kubernetes', 0), topicText('postgres', 1)]));
    await forest.resolveDirty(recordingSummarizer().summarize);
    const reloaded = new TopicForest({ state: forest.state() });
    const further = turnsFrom([topicText('kubernetes', 1), topicText('payments', 0)], 'u');

    feed(forest, further);
    feed(reloaded, further);

    expect(reloaded.state()).toEqual(forest.state());
  });

  // Loading must not compress paths: the loaded forest's parent pointers are the ones it was given.
  it('returns from state() exactly the state it was loaded from', () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom(['alpha1', 'bravo1', 'charlie1', 'delta1']));
    forest.union('t1', 't2');
    forest.union('t3', 't4');
    forest.union('t1', 't3');
    const state = forest.state();

    expect(new TopicForest({ state }).state()).toEqual(state);
  });

  // Forced merges alone make a two-step path (t4 → t2 → t1); a reload must keep it as it was.
  it('gives the same state() after a reload and forced merges as the uninterrupted forest', () => {
    const config = { mergeThreshold: 2, maxClusters: 2 };
    const forest = new TopicForest({ config });
    const turns = turnsFrom([
      topicText('postgres', 0),
      topicText('kubernetes', 0),
      topicText('postgres', 1),
      topicText('kubernetes', 1),
      topicText('payments', 0),
    ]);
    feed(forest, turns);
    const reloaded = new TopicForest({ state: forest.state() });
    const further = turnsFrom([topicText('frontend', 0)], 'u');
    expect(canonicalState(reloaded.state())).toEqual(canonicalState(forest.state()));

    feed(forest, further);
    feed(reloaded, further);

    expect(reloaded.state()).toEqual(forest.state());
  });

  // vectorNorm and cosineSimilarity sum in map order: a reloaded centroid (term order) and a live one
  // must be in the same order, or a similarity differs in the last bit and can flip a join.
  it('decides a join at the threshold the same way after a reload', () => {
    const turns = turnsFrom(['alpha delta golf', 'alpha delta golf india echo kilo', 'alpha']);
    const [first, second, third] = turns as [GraduatingTurn, GraduatingTurn, GraduatingTurn];
    const probe = new TopicForest({ config: { mergeThreshold: 0 } });
    feed(probe, [first, second]);
    const threshold = new TopicForest({ state: probe.state() }).graduate(third).similarity;
    const forest = new TopicForest({ config: { mergeThreshold: threshold } });
    expect(feed(forest, [first, second])[1]?.joined).toBe('t1');
    const reloaded = new TopicForest({ state: forest.state() });

    const results = [forest.graduate(third), reloaded.graduate(third)];

    expect(results[1]).toEqual(results[0]);
    expect(reloaded.clusters().map((cluster) => cluster.id)).toEqual(forest.clusters().map((cluster) => cluster.id));
  });

  it('survives a JSON round trip', async () => {
    const forest = await summarizedForest();
    const state = JSON.parse(JSON.stringify(forest.state())) as ForestState;

    const reloaded = new TopicForest({ state });
    const further = mixedTopicTurns(6, ['postgres', 'payments'], 'v');

    expect(reloaded.clusters()).toEqual(forest.clusters());
    expect(comparable(feed(reloaded, further))).toEqual(comparable(feed(forest, further)));
    expect(canonicalState(reloaded.state())).toEqual(canonicalState(forest.state()));
  });

  it('keeps the config saved in the state unless the caller overrides it', () => {
    const forest = new TopicForest({ config: { maxClusters: 4, mergeThreshold: 0.3, maxCentroidTerms: 20 } });
    feed(forest, mixedTopicTurns(3));

    expect(new TopicForest({ state: forest.state() }).config).toEqual(forest.config);
    expect(new TopicForest({ state: forest.state(), config: { maxClusters: 7 } }).config.maxClusters).toBe(7);
  });

  it('rejects a state of another version', () => {
    const state = { ...new TopicForest().state(), version: 2 } as unknown as ForestState;
    expectLedgerError(() => new TopicForest({ state }), 'FOREST_INTEGRITY');
  });

  it('rejects a state whose member count does not match its parent pointers', () => {
    const forest = new TopicForest();
    feed(forest, turnsFrom([topicText('postgres', 0), topicText('postgres', 1)]));
    const state = forest.state();
    const broken: ForestState = { ...state, clusters: state.clusters.map((cluster) => ({ ...cluster, members: 3 })) };

    expectLedgerError(() => new TopicForest({ state: broken }), 'FOREST_INTEGRITY');
  });

  it('rejects a state whose parent pointers leave the forest or form a cycle', () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom(['alpha1', 'bravo1']));
    forest.union('t1', 't2');
    const state = forest.state();
    const withParents = (parents: number[]): ForestState => ({
      ...state,
      nodes: state.nodes.map((node, index) => ({ ...node, parent: parents[index] ?? node.parent })),
    });

    expectLedgerError(() => new TopicForest({ state: withParents([0, 9]) }), 'FOREST_INTEGRITY');
    expectLedgerError(() => new TopicForest({ state: withParents([1, 0]) }), 'FOREST_INTEGRITY');
  });

  it('rejects a state with a root that has no cluster record', () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom(['alpha1', 'bravo1']));
    const state = forest.state();

    expectLedgerError(() => new TopicForest({ state: { ...state, clusters: state.clusters.slice(0, 1) } }), 'FOREST_INTEGRITY');
  });
});

describe('takeChanges', () => {
  it('returns each graduated node once with its current parent, then nothing', () => {
    const forest = new TopicForest();
    feed(forest, turnsFrom([topicText('postgres', 0), topicText('postgres', 1), topicText('kubernetes', 0)]));

    const first = forest.takeChanges();
    expect(first.nodes).toEqual([
      { id: 't1', parent: 't1', kind: 'graduated' },
      { id: 't2', parent: 't1', kind: 'graduated' },
      { id: 't3', parent: 't3', kind: 'graduated' },
    ]);
    expect(first.documentCount).toBe(3);
    expect(first.terms).toEqual(forest.state().tfidf.documentFrequency);

    expect(forest.takeChanges()).toEqual({ nodes: [], documentCount: 3, terms: {} });
  });

  it('reports a merged root with its new parent', () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom(['alpha1', 'bravo1', 'charlie1']));
    forest.union('t1', 't2');
    forest.takeChanges();

    forest.union('t3', 't1');

    expect(forest.takeChanges().nodes).toEqual([{ id: 't3', parent: 't1', kind: 'merged' }]);
    expect(forest.takeChanges().nodes).toEqual([]);
  });

  it('reports only the terms whose counts changed since the last call', () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom(['postgres replica', 'kubernetes helm']));
    forest.takeChanges();

    forest.graduate(graduatingTurn('t3', 'postgres vacuum'));

    expect(forest.takeChanges()).toEqual({
      nodes: [{ id: 't3', parent: 't3', kind: 'graduated' }],
      documentCount: 3,
      terms: { postgres: 2, vacuum: 1 },
    });
  });

  it('replayed over a store of parent pointers, gives every node the root find() gives', () => {
    const forest = new TopicForest({ config: { maxClusters: 2 } });
    const parents = new Map<string, string>();
    for (const turn of mixedTopicTurns(14)) {
      forest.graduate(turn);
      if (turn.id === 't7') forest.find('t2');
      for (const { id, parent } of forest.takeChanges().nodes) parents.set(id, parent);
    }
    const rootOf = (id: string): string => {
      let current = id;
      for (let parent = parents.get(current); parent !== current; parent = parents.get(current)) {
        if (parent === undefined) throw new Error(`no parent stored for ${current}`);
        current = parent;
      }
      return current;
    };

    expect(allIds(forest).map(rootOf)).toEqual(allIds(forest).map((id) => forest.find(id)));
    const state = forest.state();
    expect(rootIndices(state).map((index) => state.nodes[index]?.id)).toEqual(allIds(forest).map(rootOf));
  });

  // A plain object would take `changed['__proto__'] = n` as setting its prototype and lose the word.
  it('reports a term spelled __proto__ like any other', () => {
    const forest = new TopicForest();
    forest.graduate(graduatingTurn('t1', 'setting __proto__ causes prototype pollution'));

    expect(Object.keys(forest.takeChanges().terms).sort()).toEqual(Object.keys(forest.state().tfidf.documentFrequency).sort());
  });
});
