// Clusters come out in the order their roots were created, merges only take roots out, and two
// forests fed the same turns agree exactly: what a compaction renders never depends on timing.

import { describe, expect, it } from 'vitest';
import { TopicForest } from '../src/index.ts';
import { feed, MANUAL_UNIONS, mixedTopicTurns, must, topicText, turnsFrom } from './helpers.ts';

function clusterIds(forest: TopicForest): string[] {
  return forest.clusters().map((cluster) => cluster.id);
}

describe('stable root order', () => {
  it('lists clusters in the order their first turns graduated', () => {
    const forest = new TopicForest();
    const turns = turnsFrom([topicText('payments'), topicText('postgres'), topicText('frontend'), topicText('kubernetes')]);
    feed(forest, turns);

    expect(clusterIds(forest)).toEqual(turns.map((turn) => turn.id));
  });

  it('keeps the survivors in place when a merge takes a root out', () => {
    const forest = new TopicForest();
    const turns = turnsFrom([
      topicText('postgres'),
      topicText('kubernetes'),
      topicText('payments'),
      topicText('frontend'),
      topicText('payments', 1),
    ]);
    const results = feed(forest, turns);
    expect(results[4]?.joined).toBe('t3');
    const before = clusterIds(forest);

    // t3 holds two turns, t2 one: t3 survives where it stood and t2 leaves the list.
    expect(forest.union('t2', 't3')).toBe('t3');
    expect(clusterIds(forest)).toEqual(before.filter((id) => id !== 't2'));

    // The later, larger root survives again; t1 goes and nothing moves.
    expect(forest.union('t1', 't3')).toBe('t3');
    expect(clusterIds(forest)).toEqual(before.filter((id) => id !== 't2' && id !== 't1'));
  });

  it('keeps root order through a run of forced merges', () => {
    const forest = new TopicForest({ config: { mergeThreshold: 2, maxClusters: 2 } });
    const seen: string[] = [];
    for (const turn of mixedTopicTurns(9)) {
      const result = forest.graduate(turn);
      seen.push(turn.id);
      const absorbed = new Set(result.forcedMerges.map((merge) => merge.absorbed));
      for (const id of absorbed) seen.splice(seen.indexOf(id), 1);
      expect(clusterIds(forest)).toEqual(seen);
    }
  });

  it('returns the same clusters on repeated reads', () => {
    const forest = new TopicForest({ config: { maxClusters: 3 } });
    feed(forest, mixedTopicTurns(20));

    expect(forest.clusters()).toEqual(forest.clusters());
    expect(forest.dirtyClusterIds()).toEqual(clusterIds(forest));
  });

  it('gives two forests fed the same turns identical clusters and state', () => {
    const turns = mixedTopicTurns(24);
    const left = new TopicForest({ config: { maxClusters: 3 } });
    const right = new TopicForest({ config: { maxClusters: 3 } });

    const leftResults = feed(left, turns);
    const rightResults = feed(right, turns);

    expect(leftResults).toEqual(rightResults);
    expect(left.clusters()).toEqual(right.clusters());
    expect(left.state()).toEqual(right.state());
    expect(left.clusters().length).toBeLessThanOrEqual(3);
  });

  it('lists dirty clusters in root order after manual unions', () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, mixedTopicTurns(5));
    forest.union('t4', 't2');

    expect(forest.dirtyClusterIds()).toEqual(['t1', 't2', 't3', 't5']);
    expect(must(forest.clusters()[1]).members).toBe(2);
  });
});
