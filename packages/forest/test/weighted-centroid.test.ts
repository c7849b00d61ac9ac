// Centroids are size-weighted averages: a merge of equals lands in the middle, a big cluster barely
// moves for a small one, and a side with no words never pulls the other to zero.

import { describe, expect, it } from 'vitest';
import {
  cosineSimilarity,
  keepHeaviestTerms,
  type SparseVector,
  TfIdfModel,
  TopicForest,
  vectorNorm,
  weightedCentroid,
} from '../src/index.ts';
import { feed, graduatingTurn, MANUAL_UNIONS, turnsFrom } from './helpers.ts';

function expectVectorClose(actual: SparseVector, expected: SparseVector): void {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [term, weight] of expected) expect(actual.get(term), term).toBeCloseTo(weight, 12);
}

describe('weightedCentroid', () => {
  it('puts the centroid of two equal-size clusters at their midpoint', () => {
    const left = new Map([
      ['postgres', 0.8],
      ['vacuum', 0.6],
    ]);
    const right = new Map([
      ['postgres', 0.6],
      ['replica', 0.8],
    ]);

    const centroid = weightedCentroid(left, 3, right, 3);

    expectVectorClose(
      centroid,
      new Map([
        ['postgres', (0.8 + 0.6) / 2],
        ['vacuum', 0.6 / 2],
        ['replica', 0.8 / 2],
      ]),
    );
    expect(cosineSimilarity(centroid, left)).toBeCloseTo(cosineSimilarity(centroid, right), 12);
  });

  it('pulls the centroid towards the larger cluster in proportion to its size', () => {
    const big = new Map([['postgres', 1]]);
    const small = new Map([['helm', 1]]);

    const centroid = weightedCentroid(big, 49, small, 1);

    expectVectorClose(
      centroid,
      new Map([
        ['postgres', 49 / 50],
        ['helm', 1 / 50],
      ]),
    );
    expect(cosineSimilarity(centroid, big)).toBeGreaterThan(cosineSimilarity(centroid, small));
    // The same pair the other way round gives the same centroid.
    expectVectorClose(weightedCentroid(small, 1, big, 49), centroid);
  });

  it('keeps the other side whole when one side is empty', () => {
    const real = new Map([
      ['stripe', 0.6],
      ['refund', 0.8],
    ]);

    expect(weightedCentroid(new Map(), 5, real, 1)).toEqual(real);
    expect(weightedCentroid(real, 1, new Map(), 5)).toEqual(real);
    expect(weightedCentroid(new Map(), 1, new Map(), 1).size).toBe(0);
  });

  it('returns a new map and leaves its inputs alone', () => {
    const left = new Map([['a1', 1]]);
    const right = new Map([['b1', 1]]);
    const centroid = weightedCentroid(left, 1, right, 1);
    centroid.set('a1', 99);

    expect(left).toEqual(new Map([['a1', 1]]));
    expect(weightedCentroid(new Map(), 1, right, 1)).not.toBe(right);
  });
});

describe('keepHeaviestTerms', () => {
  it('keeps the heaviest terms, breaking ties by term', () => {
    const vector = new Map([
      ['delta', 0.1],
      ['charlie', 0.5],
      ['bravo', 0.5],
      ['alpha', 0.9],
    ]);

    expect([...keepHeaviestTerms(vector, 3).keys()]).toEqual(['alpha', 'bravo', 'charlie']);
    expect(keepHeaviestTerms(vector, 10)).toEqual(vector);
  });
});

describe('centroids in the forest', () => {
  it('updates the surviving cluster’s centroid with the sizes of both clusters', () => {
    const texts = ['postgres vacuum autovacuum', 'kubernetes helm ingress', 'kubernetes helm kubelet'];
    const model = new TfIdfModel();
    const [a, b, c] = texts.map((text) => model.addDocument(text)) as [
      Map<string, number>,
      Map<string, number>,
      Map<string, number>,
    ];

    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom(texts));
    forest.union('t2', 't3');
    const pair = weightedCentroid(b, 1, c, 1);
    expectVectorClose(forest.cluster('t2').centroid, pair);

    expect(forest.union('t1', 't2')).toBe('t2');
    const merged = forest.cluster('t2').centroid;
    expectVectorClose(merged, weightedCentroid(pair, 2, a, 1));
    expect(cosineSimilarity(merged, pair)).toBeGreaterThan(cosineSimilarity(merged, a));
  });

  it('does not let a turn with no topic words shrink a real centroid', () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    forest.graduate(graduatingTurn('t1', 'postgres vacuum autovacuum'));
    const before = forest.cluster('t1').centroid;
    forest.graduate(graduatingTurn('t2', 'and then it was the same as it is'));
    expect(forest.cluster('t2').centroid.size).toBe(0);

    forest.union('t1', 't2');

    expect(forest.cluster('t1').centroid).toEqual(before);
    expect(vectorNorm(forest.cluster('t1').centroid)).toBeCloseTo(1, 12);
  });

  it('keeps at most maxCentroidTerms terms in a centroid', () => {
    const forest = new TopicForest({ config: { ...MANUAL_UNIONS, maxCentroidTerms: 3 } });
    feed(forest, turnsFrom(['alpha1 bravo1 charlie1 delta1', 'echo1 foxtrot1 golf1 hotel1']));
    expect(forest.cluster('t1').centroid.size).toBe(3);

    forest.union('t1', 't2');

    expect(forest.cluster('t1').centroid.size).toBe(3);
  });
});
