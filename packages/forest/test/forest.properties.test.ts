// Property tests: random runs of graduations (with some manual unions and drops) over a small topic
// vocabulary, any merge threshold in [0, 1.2] and cap in [1, 6], checked against the forest's
// invariants: a partition of the graduated turns, the cap, determinism, and reload equivalence.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ClusterSummaryRequest,
  cosineSimilarity,
  type GraduationResult,
  TfIdfModel,
  TopicForest,
  vectorNorm,
} from '../src/index.ts';
import { canonicalState, graduatingTurn, liveClusterIds, TOPIC_WORDS } from './helpers.ts';

const NUM_RUNS = 80;

const VOCABULARY = [...Object.values(TOPIC_WORDS).flatMap((words) => words.slice(0, 3)), 'the', 'and', 'it', 'was'];

const textArb = fc.array(fc.constantFrom(...VOCABULARY), { minLength: 0, maxLength: 6 }).map((words) => words.join(' '));

const configArb = fc.record({
  mergeThreshold: fc.double({ min: 0, max: 1.2, noNaN: true }),
  maxClusters: fc.integer({ min: 1, max: 6 }),
});

type Op =
  | { kind: 'graduate'; text: string; tokens: number }
  | { kind: 'union'; left: number; right: number }
  | { kind: 'drop'; target: number; dropped: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant('graduate' as const), text: textArb, tokens: fc.integer({ min: 1, max: 50 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('union' as const), left: fc.nat(), right: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), target: fc.nat(), dropped: fc.boolean() }) },
);

const opsArb = fc.array(opArb, { minLength: 1, maxLength: 30 });

const graduationsArb = fc.array(
  textArb.map((text): Op => ({ kind: 'graduate', text, tokens: 1 + text.length })),
  { minLength: 1, maxLength: 30 },
);

/** Applies one op; unions and drops pick among the turns (or clusters) that exist, if any. */
function apply(forest: TopicForest, op: Op, index: number): GraduationResult | null {
  const ids = forest.state().nodes.map((node) => node.id);
  switch (op.kind) {
    case 'graduate':
      return forest.graduate(graduatingTurn(`t${index}`, op.text, { tokens: op.tokens }));
    case 'union':
      if (ids.length > 0) forest.union(ids[op.left % ids.length] as string, ids[op.right % ids.length] as string);
      return null;
    case 'drop': {
      const roots = forest.clusters().map((cluster) => cluster.id);
      if (roots.length > 0) forest.setDropped(roots[op.target % roots.length] as string, op.dropped);
      return null;
    }
  }
}

function run(config: { mergeThreshold: number; maxClusters: number }, ops: readonly Op[]): TopicForest {
  const forest = new TopicForest({ config });
  for (const [index, op] of ops.entries()) apply(forest, op, index);
  return forest;
}

function expectPartition(forest: TopicForest): void {
  const ids = forest.state().nodes.map((node) => node.id);
  const clusters = forest.clusters();
  const expanded = clusters.flatMap((cluster) => forest.expand(cluster.id));

  expect(clusters.reduce((sum, cluster) => sum + cluster.members, 0)).toBe(forest.size);
  expect(expanded).toHaveLength(ids.length);
  expect(new Set(expanded).size).toBe(expanded.length);
  expect([...expanded].sort()).toEqual([...ids].sort());
  for (const cluster of clusters) {
    const members = forest.expand(cluster.id);
    expect(members).toHaveLength(cluster.members);
    expect(members).toContain(cluster.id);
    expect(cluster.pending.every((id) => members.includes(id))).toBe(true);
  }
  for (const id of ids) expect(forest.expand(forest.find(id) as string)).toContain(id);
}

describe('forest properties', () => {
  it('keeps every graduated turn in exactly one cluster', () => {
    fc.assert(
      fc.property(configArb, opsArb, (config, ops) => {
        const forest = new TopicForest({ config });
        ops.forEach((op, index) => {
          apply(forest, op, index);
          expectPartition(forest);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('keeps live clusters within the cap after every graduation', () => {
    fc.assert(
      fc.property(configArb, opsArb, (config, ops) => {
        const forest = new TopicForest({ config });
        ops.forEach((op, index) => {
          const result = apply(forest, op, index);
          if (result === null) return;
          expect(liveClusterIds(forest).length).toBeLessThanOrEqual(config.maxClusters);
          expect(forest.find(`t${index}`)).toBe(result.clusterId);
          for (const merge of result.forcedMerges) expect(forest.find(merge.absorbed)).toBe(forest.find(merge.kept));
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('gives the same state for the same input', () => {
    fc.assert(
      fc.property(configArb, opsArb, (config, ops) => {
        expect(run(config, ops).state()).toEqual(run(config, ops).state());
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('goes on after a reload at any point as if it had never stopped', () => {
    fc.assert(
      fc.property(configArb, opsArb, fc.nat(), fc.boolean(), (config, ops, cut, viaJson) => {
        const at = cut % (ops.length + 1);
        const uninterrupted = run(config, ops);

        const before = run(config, ops.slice(0, at));
        const state = viaJson ? JSON.parse(JSON.stringify(before.state())) : before.state();
        const reloaded = new TopicForest({ state });
        for (const [offset, op] of ops.slice(at).entries()) apply(reloaded, op, at + offset);

        expect(reloaded.clusters()).toEqual(uninterrupted.clusters());
        // Parent pointers compared by root: load() compresses paths (see serialization.test.ts).
        expect(canonicalState(reloaded.state())).toEqual(canonicalState(uninterrupted.state()));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('keeps state() deep-equal after a reload and further graduations when the saved parents are flat', () => {
    fc.assert(
      fc.property(configArb, graduationsArb, fc.nat(), (config, ops, cut) => {
        const at = cut % (ops.length + 1);
        const before = run(config, ops.slice(0, at));
        const state = before.state();
        // Only where the saved parents are already flat does the strict comparison hold today.
        fc.pre(state.nodes.every((node) => state.nodes[node.parent]?.parent === node.parent));
        const reloaded = new TopicForest({ state });
        for (const [offset, op] of ops.slice(at).entries()) apply(reloaded, op, at + offset);

        expect(reloaded.state()).toEqual(run(config, ops).state());
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('makes at most one summarizer call per dirty cluster and sends each pending turn once', async () => {
    await fc.assert(
      fc.asyncProperty(configArb, opsArb, fc.func(fc.boolean()), async (config, ops, fails) => {
        const forest = run(config, ops);
        const dirty = forest.dirtyClusterIds();
        const pending = new Map(forest.clusters().map((cluster) => [cluster.id, cluster.pending]));
        const requests: ClusterSummaryRequest[] = [];

        const result = await forest.resolveDirty(async (request) => {
          requests.push(request);
          if (fails(request.clusterId)) throw new Error('down');
          return `summary ${request.clusterId}`;
        });

        expect(requests.map((request) => request.clusterId)).toEqual(dirty);
        for (const request of requests) expect(request.turns.map((turn) => turn.id)).toEqual(pending.get(request.clusterId));
        expect([...result.summarized, ...result.failed.map((failure) => failure.clusterId)].sort()).toEqual([...dirty].sort());
        expect(forest.dirtyClusterIds()).toEqual(result.failed.map((failure) => failure.clusterId));
        expectPartition(forest);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('makes unit vectors and finite cosines in [0, 1] for any texts', () => {
    fc.assert(
      fc.property(fc.array(textArb, { minLength: 1, maxLength: 10 }), textArb, (texts, query) => {
        const model = new TfIdfModel();
        const vectors = texts.map((text) => model.addDocument(text));
        vectors.push(model.vectorize(query));
        for (const left of vectors) {
          if (left.size > 0) expect(vectorNorm(left)).toBeCloseTo(1, 12);
          for (const right of vectors) {
            const similarity = cosineSimilarity(left, right);
            expect(Number.isFinite(similarity)).toBe(true);
            expect(similarity).toBeGreaterThanOrEqual(0);
            expect(similarity).toBeLessThanOrEqual(1 + 1e-12);
            expect(cosineSimilarity(right, left)).toBeCloseTo(similarity, 12);
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
