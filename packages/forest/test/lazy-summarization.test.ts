// Lazy summarization: graduation and union only mark clusters dirty; resolveDirty makes one call per
// dirty cluster, folding the previous summaries with the pending turns. A result for a cluster that
// changed in flight is discarded, and a failed call keeps everything needed to try again.

import { describe, expect, it } from 'vitest';
import { TopicForest } from '../src/index.ts';
import {
  feed,
  graduatingTurn,
  MANUAL_UNIONS,
  mixedTopicTurns,
  must,
  recordingSummarizer,
  topicText,
  turnsFrom,
} from './helpers.ts';

function pendingTexts(forest: TopicForest): Array<string | undefined> {
  return forest.state().nodes.map((node) => node.text);
}

describe('lazy summarization', () => {
  it('leaves graduated and merged clusters dirty and unsummarized until resolveDirty', () => {
    const forest = new TopicForest({ config: { maxClusters: 3 } });
    const results = feed(forest, mixedTopicTurns(30));
    expect(results.some((result) => result.joined !== null)).toBe(true);
    expect(results.some((result) => result.forcedMerges.length > 0)).toBe(true);

    for (const cluster of forest.clusters()) {
      expect(cluster).toMatchObject({ dirty: true, summary: null, summaryVersion: 0 });
      expect(cluster.pending).toEqual(forest.expand(cluster.id));
    }
  });

  it('makes one call per dirty cluster, not per turn', async () => {
    const forest = new TopicForest({ config: { maxClusters: 3 } });
    feed(forest, mixedTopicTurns(30));
    const dirty = forest.dirtyClusterIds();
    expect(dirty.length).toBeGreaterThan(0);
    expect(dirty.length).toBeLessThanOrEqual(3);
    const { summarize, requests } = recordingSummarizer();

    const result = await forest.resolveDirty(summarize);

    expect(requests.map((request) => request.clusterId)).toEqual(dirty);
    expect(result).toEqual({ summarized: dirty, stale: [], failed: [] });
    expect(requests.flatMap((request) => request.turns).length).toBe(30);
  });

  it('leaves clusters clean with their summary and a bumped version', async () => {
    const forest = new TopicForest({ config: { maxClusters: 3 } });
    feed(forest, mixedTopicTurns(12));
    const versions = forest.clusters().map((cluster) => cluster.summaryVersion);
    const { summarize, requests } = recordingSummarizer();

    await forest.resolveDirty(summarize);

    expect(forest.dirtyClusterIds()).toEqual([]);
    forest.clusters().forEach((cluster, index) => {
      expect(cluster).toMatchObject({ dirty: false, pending: [], absorbedSummaries: [] });
      expect(cluster.summaryVersion).toBe((versions[index] ?? Number.NaN) + 1);
      expect(cluster.summary).toBe(`summary of ${cluster.id} #${index + 1}`);
    });
    expect(requests).toHaveLength(forest.clusters().length);
    // Summarized turns no longer carry their text in the saved state.
    expect(pendingTexts(forest)).toEqual(Array(12).fill(undefined));
  });

  it('makes no call when nothing is dirty', async () => {
    const forest = new TopicForest();
    feed(forest, mixedTopicTurns(6));
    await forest.resolveDirty(recordingSummarizer().summarize);
    const { summarize, requests } = recordingSummarizer();

    expect(await forest.resolveDirty(summarize)).toEqual({ summarized: [], stale: [], failed: [] });
    expect(requests).toEqual([]);
    expect(await new TopicForest().resolveDirty(summarize)).toEqual({ summarized: [], stale: [], failed: [] });
  });

  it('sends every pending turn, oldest first, with no previous summary the first time', async () => {
    const forest = new TopicForest();
    const turns = turnsFrom([topicText('postgres', 0), topicText('postgres', 1), topicText('postgres', 2)]);
    feed(forest, turns);
    expect(forest.clusters()).toHaveLength(1);
    const { summarize, requests } = recordingSummarizer();

    await forest.resolveDirty(summarize);

    expect(requests).toEqual([
      {
        clusterId: 't1',
        previousSummaries: [],
        turns: turns.map(({ id, text, timestamp }) => ({ id, text, timestamp })),
      },
    ]);
  });

  it('sends only the new turn and the previous summary when one turn joins a summarized cluster', async () => {
    const forest = new TopicForest();
    feed(forest, turnsFrom([topicText('postgres', 0), topicText('postgres', 1)]));
    await forest.resolveDirty(recordingSummarizer().summarize);
    const previous = must(forest.cluster('t1').summary);

    const added = graduatingTurn('t3', topicText('postgres', 2));
    expect(forest.graduate(added).joined).toBe('t1');
    expect(forest.cluster('t1')).toMatchObject({ dirty: true, pending: ['t3'], summaryVersion: 1 });
    const { summarize, requests } = recordingSummarizer();
    await forest.resolveDirty(summarize);

    expect(requests).toEqual([
      { clusterId: 't1', previousSummaries: [previous], turns: [{ id: 't3', text: added.text, timestamp: added.timestamp }] },
    ]);
    expect(forest.cluster('t1').summaryVersion).toBe(2);
  });

  it('folds the summaries of merged clusters after the survivor’s own', async () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom([topicText('postgres'), topicText('kubernetes'), topicText('payments')]));
    await forest.resolveDirty(recordingSummarizer().summarize);
    const summaries = forest.clusters().map((cluster) => must(cluster.summary));
    forest.union('t1', 't2');
    forest.union('t1', 't3');
    const late = graduatingTurn('t4', topicText('frontend'));
    forest.graduate(late);
    forest.union('t1', 't4');
    expect(forest.cluster('t1')).toMatchObject({ absorbedSummaries: summaries.slice(1), pending: ['t4'] });
    const { summarize, requests } = recordingSummarizer();

    await forest.resolveDirty(summarize);

    expect(requests).toEqual([
      { clusterId: 't1', previousSummaries: summaries, turns: [{ id: 't4', text: late.text, timestamp: late.timestamp }] },
    ]);
    expect(forest.cluster('t1')).toMatchObject({ dirty: false, absorbedSummaries: [], summaryVersion: 2 });
  });

  it('discards a summary when a similar turn joins the cluster while the call is in flight', async () => {
    const forest = new TopicForest();
    feed(forest, turnsFrom([topicText('postgres', 0), topicText('postgres', 1)]));
    const late = graduatingTurn('t3', topicText('postgres', 2));
    const { summarize, requests } = recordingSummarizer({
      during: () => {
        if (!forest.has('t3')) expect(forest.graduate(late).joined).toBe('t1');
      },
    });

    const result = await forest.resolveDirty(summarize);

    expect(result).toEqual({ summarized: [], stale: ['t1'], failed: [] });
    expect(forest.cluster('t1')).toMatchObject({ dirty: true, summary: null, summaryVersion: 0, pending: ['t1', 't2', 't3'] });
    expect(pendingTexts(forest).every((text) => text !== undefined)).toBe(true);

    await forest.resolveDirty(summarize);
    expect(requests.map((request) => request.turns.map((turn) => turn.id))).toEqual([
      ['t1', 't2'],
      ['t1', 't2', 't3'],
    ]);
    expect(forest.cluster('t1')).toMatchObject({ dirty: false, summaryVersion: 1 });
  });

  it('discards a summary when its cluster absorbs another while the call is in flight', async () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom([topicText('postgres'), topicText('kubernetes'), topicText('payments')]));
    const { summarize, requests } = recordingSummarizer({
      during: (request) => {
        if (request.clusterId === 't1') forest.union('t1', 't2');
      },
    });

    const result = await forest.resolveDirty(summarize);

    // t2 was merged away before its turn came, so it gets no call of its own.
    expect(requests.map((request) => request.clusterId)).toEqual(['t1', 't3']);
    expect(result).toEqual({ summarized: ['t3'], stale: ['t1'], failed: [] });
    expect(forest.cluster('t1')).toMatchObject({ dirty: true, summaryVersion: 0, pending: ['t1', 't2'] });
  });

  it('discards a summary when its cluster is merged into another while the call is in flight', async () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    feed(forest, turnsFrom([topicText('postgres'), topicText('kubernetes')]));
    const { summarize } = recordingSummarizer({
      during: (request) => {
        if (request.clusterId === 't2') forest.union('t1', 't2');
      },
    });

    const result = await forest.resolveDirty(summarize);

    expect(result).toEqual({ summarized: ['t1'], stale: ['t2'], failed: [] });
    expect(forest.clusters().map((cluster) => cluster.id)).toEqual(['t1']);
    // t1's fresh summary stands, but t2's turn is still waiting to be folded in.
    expect(forest.cluster('t1')).toMatchObject({ dirty: true, summaryVersion: 1, pending: ['t2'], absorbedSummaries: [] });
  });

  it('keeps a cluster whose call failed dirty, with its pending turns and their text, and summarizes the others', async () => {
    const forest = new TopicForest({ config: MANUAL_UNIONS });
    const turns = turnsFrom([topicText('postgres'), topicText('kubernetes'), topicText('payments'), topicText('kubernetes', 1)]);
    feed(forest, turns);
    forest.union('t2', 't4');
    const { summarize } = recordingSummarizer({ fail: (request) => request.clusterId === 't2' });

    const result = await forest.resolveDirty(summarize);

    expect(result.summarized).toEqual(['t1', 't3']);
    expect(result.stale).toEqual([]);
    expect(result.failed.map((failure) => failure.clusterId)).toEqual(['t2']);
    expect(String(result.failed[0]?.error)).toContain('summarizer down for t2');
    expect(forest.cluster('t2')).toMatchObject({ dirty: true, summary: null, summaryVersion: 0, pending: ['t2', 't4'] });
    expect(forest.dirtyClusterIds()).toEqual(['t2']);

    const retry = recordingSummarizer();
    expect(await forest.resolveDirty(retry.summarize)).toEqual({ summarized: ['t2'], stale: [], failed: [] });
    const expectedTurns = [turns[1], turns[3]].map((turn) => ({
      id: must(turn).id,
      text: must(turn).text,
      timestamp: must(turn).timestamp,
    }));
    expect(retry.requests).toEqual([{ clusterId: 't2', previousSummaries: [], turns: expectedTurns }]);
  });
});
