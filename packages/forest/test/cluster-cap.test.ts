// The cap on live clusters: past maxClusters the closest pair is merged and reported, even when the
// threshold lets nothing join on its own; dropped clusters stand outside the cap and take no turns.

import { describe, expect, it } from 'vitest';
import { cosineSimilarity, TfIdfModel, TopicForest } from '../src/index.ts';
import { expectLedgerError, feed, graduatingTurn, liveClusterIds, mixedTopicTurns, topicText, turnsFrom } from './helpers.ts';

describe('cluster cap', () => {
  it('never keeps more than maxClusters live clusters', () => {
    const forest = new TopicForest({ config: { maxClusters: 3 } });
    const counts = mixedTopicTurns(16).map((turn) => {
      forest.graduate(turn);
      return forest.clusters().length;
    });

    expect(Math.max(...counts)).toBe(3);
    expect(forest.size).toBe(16);
  });

  it.each([1, 1.5])('forces merges when mergeThreshold %s lets every turn start its own cluster', (mergeThreshold) => {
    const maxClusters = 2;
    const forest = new TopicForest({ config: { mergeThreshold, maxClusters } });
    const turns = mixedTopicTurns(7);
    const results = feed(forest, turns);

    expect(results.map((result) => result.joined)).toEqual(Array(turns.length).fill(null));
    expect(results.map((result) => result.forcedMerges.length)).toEqual(
      turns.map((_, index) => (index + 1 > maxClusters ? 1 : 0)),
    );
    expect(forest.clusters()).toHaveLength(maxClusters);
    for (const { kept, absorbed } of results.flatMap((result) => result.forcedMerges)) {
      expect(kept).not.toBe(absorbed);
      expect(forest.find(absorbed)).toBe(forest.find(kept));
    }
    expect(forest.clusters().reduce((sum, cluster) => sum + cluster.members, 0)).toBe(turns.length);
  });

  it('merges the closest pair and reports it with its similarity', () => {
    const texts = ['postgres vacuum autovacuum', 'kubernetes helm ingress', 'postgres vacuum checkpoint'];
    const model = new TfIdfModel();
    const [first, , third] = texts.map((text) => model.addDocument(text));
    const forest = new TopicForest({ config: { mergeThreshold: 2, maxClusters: 2 } });

    const results = feed(forest, turnsFrom(texts));

    const merge = results[2]?.forcedMerges;
    expect(merge).toHaveLength(1);
    expect(merge?.[0]).toMatchObject({ kept: 't1', absorbed: 't3' });
    expect(merge?.[0]?.similarity).toBeCloseTo(cosineSimilarity(first ?? new Map(), third ?? new Map()), 12);
    expect(results[2]?.clusterId).toBe('t1');
    expect(forest.expand('t1')).toEqual(['t1', 't3']);
    expect(forest.expand('t2')).toEqual(['t2']);
  });

  it('does not count dropped clusters against the cap', () => {
    const forest = new TopicForest({ config: { maxClusters: 2 } });
    feed(forest, turnsFrom([topicText('postgres'), topicText('kubernetes')]));
    forest.setDropped('t1', true);

    const result = forest.graduate(graduatingTurn('t3', topicText('payments')));

    expect(result.forcedMerges).toEqual([]);
    expect(forest.clusters().map((cluster) => [cluster.id, cluster.dropped])).toEqual([
      ['t1', true],
      ['t2', false],
      ['t3', false],
    ]);
    expect(liveClusterIds(forest)).toEqual(['t2', 't3']);
  });

  it('gives a dropped cluster no new members, even a turn identical to its own', () => {
    const forest = new TopicForest({ config: { maxClusters: 2 } });
    feed(forest, turnsFrom([topicText('postgres'), topicText('kubernetes')]));
    forest.setDropped('t1', true);

    const result = forest.graduate(graduatingTurn('t3', topicText('postgres')));
    forest.graduate(graduatingTurn('t4', topicText('frontend')));

    expect(result.joined).toBeNull();
    expect(forest.find('t3')).not.toBe('t1');
    expect(forest.expand('t1')).toEqual(['t1']);
    expect(forest.cluster('t1')).toMatchObject({ members: 1, dropped: true });
    expect(liveClusterIds(forest)).toHaveLength(2);
  });

  it('skips dropped clusters in nearest and offers them again once resumed', () => {
    const forest = new TopicForest();
    feed(forest, turnsFrom([topicText('postgres'), topicText('kubernetes')]));
    const query = topicText('postgres', 2);
    expect(forest.nearest(query, 5).map((hit) => hit.clusterId)).toEqual(['t1']);

    forest.setDropped('t1', true);
    expect(forest.nearest(query, 5)).toEqual([]);

    forest.setDropped('t1', false);
    expect(forest.nearest(query, 5).map((hit) => hit.clusterId)).toEqual(['t1']);
  });

  it('refuses to drop an id that is not a cluster root', () => {
    const forest = new TopicForest();
    feed(forest, turnsFrom([topicText('postgres', 0), topicText('postgres', 1)]));
    expect(forest.find('t2')).toBe('t1');

    expectLedgerError(() => forest.setDropped('t2', true), 'CLUSTER_NOT_FOUND');
    expect(forest.cluster('t1').dropped).toBe(false);
  });
});
