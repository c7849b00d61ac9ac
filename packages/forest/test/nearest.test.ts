// nearest(query, k, minSimilarity): the live clusters closest to a query, best first, never a NaN
// and never a cluster that shares no word with the query. A query is not counted as a document.

import { describe, expect, it } from 'vitest';
import { TopicForest } from '../src/index.ts';
import { feed, graduatingTurn, topicText, turnsFrom } from './helpers.ts';

function threeTopicForest(): TopicForest {
  const forest = new TopicForest();
  feed(
    forest,
    turnsFrom([
      'postgres replica vacuum checkpoint',
      'kubernetes helm ingress pod',
      'stripe invoice refund webhook',
      'postgres wal replica lag',
      'kubernetes deployment helm',
    ]),
  );
  expect(forest.clusters().map((cluster) => cluster.id)).toEqual(['t1', 't2', 't3']);
  return forest;
}

describe('nearest', () => {
  it('puts the most similar cluster first and sorts the rest by similarity', () => {
    const forest = threeTopicForest();

    const hits = forest.nearest('postgres replica with a helm chart and postgres again', 3);

    expect(hits.map((hit) => hit.clusterId)).toEqual(['t1', 't2']);
    const similarities = hits.map((hit) => hit.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
    expect(similarities[0]).toBeGreaterThan(similarities[1] ?? 1);
  });

  it('returns at most k clusters', () => {
    const forest = threeTopicForest();
    const query = 'postgres helm stripe';
    const all = forest.nearest(query, 10);
    expect(all).toHaveLength(3);

    expect(forest.nearest(query, 2)).toEqual(all.slice(0, 2));
    expect(forest.nearest(query, 1)).toEqual(all.slice(0, 1));
    expect(forest.nearest(query, 0)).toEqual([]);
    expect(forest.nearest(query, -3)).toEqual([]);
  });

  it('leaves out clusters below minSimilarity', () => {
    const forest = threeTopicForest();
    const query = 'postgres replica vacuum and one stripe refund';
    const all = forest.nearest(query, 10);
    expect(all).toHaveLength(2);
    const [best, second] = all.map((hit) => hit.similarity) as [number, number];
    const between = (best + second) / 2;

    expect(forest.nearest(query, 10, between)).toEqual(all.slice(0, 1));
    expect(forest.nearest(query, 10, best)).toEqual(all.slice(0, 1));
    expect(forest.nearest(query, 10, best + 1e-9)).toEqual([]);
  });

  it.each([
    ['words the forest has never seen', 'zebra quantum marmalade'],
    ['only stopwords', 'and then it was the same as it is'],
    ['an empty query', ''],
  ])('returns nothing for %s', (_, query) => {
    expect(threeTopicForest().nearest(query, 5)).toEqual([]);
  });

  it('returns nothing from an empty forest', () => {
    expect(new TopicForest().nearest(topicText('postgres'), 5)).toEqual([]);
  });

  it('never returns NaN, even next to a cluster with an empty centroid', () => {
    const forest = new TopicForest({ config: { mergeThreshold: 2 } });
    forest.graduate(graduatingTurn('t1', 'it is what it is'));
    forest.graduate(graduatingTurn('t2', topicText('postgres')));
    expect(forest.cluster('t1').centroid.size).toBe(0);

    for (const query of ['', 'it is', topicText('postgres', 3), 'zebra']) {
      for (const hit of forest.nearest(query, 5, 0)) {
        expect(Number.isFinite(hit.similarity)).toBe(true);
        expect(hit.similarity).toBeGreaterThan(0);
        expect(hit.similarity).toBeLessThanOrEqual(1 + 1e-12);
      }
    }
    expect(forest.nearest(topicText('postgres', 3), 5).map((hit) => hit.clusterId)).toEqual(['t2']);
  });

  it('does not count the query as a document', () => {
    const forest = threeTopicForest();
    const before = forest.state();

    forest.nearest('postgres and a brand new word', 3);

    expect(forest.state()).toEqual(before);
    expect(forest.takeChanges().documentCount).toBe(5);
  });
});
