// The forest's own operations: graduation into a singleton or the nearest cluster, union by size,
// find with path compression, expand, and the errors for ids that are not roots or graduate twice.

import { ClusterNotFoundError, ForestIntegrityError } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import { cosineSimilarity, DEFAULT_FOREST_CONFIG, TfIdfModel, TopicForest } from '../src/index.ts';
import { expectLedgerError, feed, graduatingTurn, MANUAL_UNIONS, must, topicText, turnsFrom } from './helpers.ts';

/** A forest of singletons a, b, c, … (no automatic joins or forced merges). */
function singletons(ids: readonly string[]): TopicForest {
  const forest = new TopicForest({ config: MANUAL_UNIONS });
  for (const id of ids) forest.graduate(graduatingTurn(id, `${id}word distinct${id}`));
  return forest;
}

function parentOf(forest: TopicForest, id: string): string {
  const { nodes } = forest.state();
  const node = must(
    nodes.find((candidate) => candidate.id === id),
    `node ${id}`,
  );
  return must(nodes[node.parent], `parent of ${id}`).id;
}

describe('graduation', () => {
  it('starts a singleton cluster for the first turn', () => {
    const forest = new TopicForest();
    const turn = graduatingTurn('t1', topicText('postgres'), { tokens: 17 });
    const result = forest.graduate(turn);

    expect(result).toEqual({ clusterId: 't1', joined: null, similarity: 0, forcedMerges: [] });
    expect(forest.size).toBe(1);
    expect(forest.has('t1')).toBe(true);
    const [cluster, ...others] = forest.clusters();
    expect(others).toEqual([]);
    expect(cluster).toMatchObject({
      id: 't1',
      members: 1,
      memberTokens: 17,
      summary: null,
      summaryVersion: 0,
      dirty: true,
      pending: ['t1'],
      firstTimestamp: turn.timestamp,
      lastTimestamp: turn.timestamp,
      dropped: false,
    });
  });

  it('defaults to the paper’s merge threshold of 0.15 and cap of 10', () => {
    expect(new TopicForest().config).toEqual(DEFAULT_FOREST_CONFIG);
    expect(DEFAULT_FOREST_CONFIG).toMatchObject({ mergeThreshold: 0.15, maxClusters: 10 });
  });

  it('joins the nearest cluster when the cosine reaches the merge threshold', () => {
    const [first, second] = turnsFrom([topicText('postgres', 0), topicText('postgres', 1)]);
    const model = new TfIdfModel();
    const expected = cosineSimilarity(model.addDocument(must(first).text), model.addDocument(must(second).text));
    expect(expected).toBeGreaterThanOrEqual(DEFAULT_FOREST_CONFIG.mergeThreshold);

    const forest = new TopicForest();
    forest.graduate(must(first));
    const result = forest.graduate(must(second));

    expect(result).toMatchObject({ clusterId: 't1', joined: 't1', forcedMerges: [] });
    expect(result.similarity).toBeCloseTo(expected, 12);
    expect(forest.clusters().map((cluster) => [cluster.id, cluster.members])).toEqual([['t1', 2]]);
    expect(forest.find('t2')).toBe('t1');
  });

  it('joins at exactly the threshold and not just above it', () => {
    const turns = turnsFrom(['postgres replica vacuum', 'postgres checkpoint wal']);
    const model = new TfIdfModel();
    const similarity = cosineSimilarity(model.addDocument(must(turns[0]).text), model.addDocument(must(turns[1]).text));
    expect(similarity).toBeGreaterThan(0);

    const atThreshold = new TopicForest({ config: { mergeThreshold: similarity } });
    expect(feed(atThreshold, turns)[1]?.joined).toBe('t1');

    const aboveThreshold = new TopicForest({ config: { mergeThreshold: similarity + 1e-9 } });
    expect(feed(aboveThreshold, turns)[1]?.joined).toBeNull();
    expect(aboveThreshold.clusters().map((cluster) => cluster.id)).toEqual(['t1', 't2']);
  });

  it('starts a new cluster for a turn that shares no topic word with any cluster', () => {
    const forest = new TopicForest();
    const results = feed(forest, turnsFrom([topicText('postgres'), topicText('kubernetes')]));

    expect(results[1]).toEqual({ clusterId: 't2', joined: null, similarity: 0, forcedMerges: [] });
    expect(forest.clusters().map((cluster) => [cluster.id, cluster.members])).toEqual([
      ['t1', 1],
      ['t2', 1],
    ]);
  });

  it('refuses a turn that already graduated and leaves the forest as it was', () => {
    const forest = new TopicForest();
    forest.graduate(graduatingTurn('t1', topicText('postgres')));
    const before = forest.state();

    const error = expectLedgerError(() => forest.graduate(graduatingTurn('t1', topicText('kubernetes'))), 'FOREST_INTEGRITY');
    expect(error).toBeInstanceOf(ForestIntegrityError);
    expect(error.message).toContain('t1');
    expect(forest.state()).toEqual(before);
  });

  it('rejects a config with no room for a cluster', () => {
    expectLedgerError(() => new TopicForest({ config: { maxClusters: 0 } }), 'INVALID_INPUT');
    expectLedgerError(() => new TopicForest({ config: { mergeThreshold: Number.NaN } }), 'INVALID_INPUT');
  });
});

describe('union', () => {
  it('keeps the larger cluster’s root whichever side it is passed on', () => {
    const forest = singletons(['a', 'b', 'c']);
    forest.union('b', 'c');

    expect(forest.union('a', 'b')).toBe('b');
    expect(forest.clusters().map((cluster) => [cluster.id, cluster.members])).toEqual([['b', 3]]);
    expect(['a', 'b', 'c'].map((id) => forest.find(id))).toEqual(['b', 'b', 'b']);
  });

  it('keeps the earlier root when both clusters have the same size', () => {
    const forward = singletons(['a', 'b']);
    const backward = singletons(['a', 'b']);

    expect(forward.union('a', 'b')).toBe('a');
    expect(backward.union('b', 'a')).toBe('a');
  });

  it('sums members and member tokens and spans both clusters’ timestamps', () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    forest.graduate(graduatingTurn('a', 'alpha', { tokens: 3, timestamp: 500 }));
    forest.graduate(graduatingTurn('b', 'beta', { tokens: 4, timestamp: 100 }));
    forest.union('a', 'b');

    expect(forest.cluster('a')).toMatchObject({ members: 2, memberTokens: 7, firstTimestamp: 100, lastTimestamp: 500 });
  });

  it('does nothing for two ids already in the same cluster', async () => {
    const forest = singletons(['a', 'b', 'c']);
    forest.union('a', 'b');
    await forest.resolveDirty(async () => 'summary');
    const before = forest.state();

    expect(forest.union('b', 'a')).toBe('a');
    expect(forest.union('a', 'a')).toBe('a');
    expect(forest.state()).toEqual(before);
    expect(forest.cluster('a')).toMatchObject({ members: 2, dirty: false });
  });

  it('throws ClusterNotFoundError for an id that never graduated', () => {
    const forest = singletons(['a']);
    const error = expectLedgerError(() => forest.union('a', 'ghost'), 'CLUSTER_NOT_FOUND');
    expect(error).toBeInstanceOf(ClusterNotFoundError);
    expect(forest.cluster('a').members).toBe(1);
  });
});

describe('find', () => {
  it('returns null for an id that never graduated', () => {
    expect(singletons(['a']).find('ghost')).toBeNull();
    expect(new TopicForest().find('a')).toBeNull();
  });

  it('returns the root after a chain of unions and points every visited node at it', () => {
    // Pairs, then pairs of pairs, then the two halves: h → g → e → a before any find.
    const forest = singletons(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    forest.union('a', 'b');
    forest.union('c', 'd');
    forest.union('e', 'f');
    forest.union('g', 'h');
    forest.union('a', 'c');
    forest.union('e', 'g');
    forest.union('a', 'e');
    expect(['h', 'g', 'e'].map((id) => parentOf(forest, id))).toEqual(['g', 'e', 'a']);

    expect(forest.find('h')).toBe('a');

    expect(['h', 'g', 'e'].map((id) => parentOf(forest, id))).toEqual(['a', 'a', 'a']);
    // Nodes off the path keep their pointers until they are looked up themselves.
    expect(parentOf(forest, 'd')).toBe('c');
    expect(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((id) => forest.find(id))).toEqual(Array(8).fill('a'));
  });
});

describe('expand', () => {
  it('lists a cluster’s members in graduation order, not merge order', () => {
    const forest = singletons(['a', 'b', 'c', 'd']);
    forest.union('c', 'd');
    forest.union('b', 'c');
    const root = forest.union('a', 'c');

    expect(root).toBe('c');
    expect(forest.expand('c')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('throws CLUSTER_NOT_FOUND for a member that is not a root, naming the root to use', () => {
    const forest = singletons(['a', 'b', 'c']);
    forest.union('b', 'c');
    forest.union('a', 'b');

    const error = expectLedgerError(() => forest.expand('a'), 'CLUSTER_NOT_FOUND');
    expect(error).toBeInstanceOf(ClusterNotFoundError);
    expect((error as ClusterNotFoundError).clusterId).toBe('a');
    expect(error.message).toContain('use b');
    expectLedgerError(() => forest.cluster('c'), 'CLUSTER_NOT_FOUND');
  });

  it('throws CLUSTER_NOT_FOUND for an id that never graduated', () => {
    const error = expectLedgerError(() => singletons(['a']).expand('ghost'), 'CLUSTER_NOT_FOUND');
    expect(error.message).toContain('ghost');
  });
});
