// A cluster as the forest keeps it (its centroid merged in place, its member and pending ids as
// chains through the nodes), how one starts, how one absorbs another, and how it is shown.

import { type Centroid, centroidEntries, mergeInto } from './centroid.ts';
import type { ForestNodes, IdChain } from './forest-nodes.ts';
import type { Cluster, GraduatingTurn } from './forest-types.ts';

export interface ClusterRecord extends Omit<Cluster, 'centroid' | 'pending' | 'absorbedSummaries'> {
  centroid: Centroid;
  pendingChain: IdChain;
  absorbedSummaries: string[];
  memberChain: IdChain;
}

/** The forest's structure as its helper modules read and change it. */
export interface ClusterTable {
  readonly nodes: ForestNodes;
  /** Live roots in insertion order: output order is stable for the same input. */
  readonly roots: string[];
  readonly records: Map<string, ClusterRecord>;
}

/** The cluster a graduating turn starts on its own, at logical time `touched`. */
export function singletonCluster(turn: GraduatingTurn, centroid: Centroid, touched: number): ClusterRecord {
  return {
    id: turn.id,
    members: 1,
    memberTokens: turn.tokens,
    summary: null,
    summaryVersion: 0,
    dirty: true,
    pendingChain: { first: turn.id, last: turn.id },
    absorbedSummaries: [],
    // Its own object: a centroid is merged in place once the cluster absorbs another.
    centroid: { terms: centroid.terms, weights: centroid.weights, ids: centroid.ids, norm: centroid.norm },
    firstTimestamp: turn.timestamp,
    lastTimestamp: turn.timestamp,
    touched,
    dropped: false,
    memberChain: { first: turn.id, last: turn.id },
    generation: 0,
  };
}

export interface Absorption {
  kept: ClusterRecord;
  absorbed: ClusterRecord;
  nodes: ForestNodes;
  /** The forest's logical time now. */
  time: number;
  maxCentroidTerms: number;
}

/**
 * Folds `absorbed` into `kept`: centroid, sizes, member and pending chains, unfolded summaries,
 * time span. `kept` turns dirty and starts a new generation. Parent pointers are the caller's.
 */
export function absorbCluster({ kept, absorbed, nodes, time, maxCentroidTerms }: Absorption): void {
  mergeInto({
    left: kept.centroid,
    leftSize: kept.members,
    right: absorbed.centroid,
    rightSize: absorbed.members,
    limit: maxCentroidTerms,
  });
  kept.members += absorbed.members;
  kept.memberTokens += absorbed.memberTokens;
  nodes.appendChain(kept.memberChain, absorbed.memberChain, 'nextMember');
  nodes.appendChain(kept.pendingChain, absorbed.pendingChain, 'nextPending');
  if (absorbed.summary) kept.absorbedSummaries.push(absorbed.summary);
  for (const summary of absorbed.absorbedSummaries) kept.absorbedSummaries.push(summary);
  kept.firstTimestamp = Math.min(kept.firstTimestamp, absorbed.firstTimestamp);
  kept.lastTimestamp = Math.max(kept.lastTimestamp, absorbed.lastTimestamp);
  kept.touched = Math.max(time, kept.touched, absorbed.touched);
  kept.dirty = true;
  kept.generation += 1;
  kept.dropped = kept.dropped && absorbed.dropped;
}

/** Members not folded into a summary yet, in graduation order. */
export function pendingIds(cluster: ClusterRecord, nodes: ForestNodes): string[] {
  return nodes.inGraduationOrder(nodes.chainIds(cluster.pendingChain, 'nextPending'));
}

/** The cluster as readers see it: copies, never the forest's own arrays. */
export function clusterView(cluster: ClusterRecord, nodes: ForestNodes): Cluster {
  const { memberChain: _members, pendingChain: _pending, ...rest } = cluster;
  return {
    ...rest,
    pending: pendingIds(cluster, nodes),
    absorbedSummaries: [...rest.absorbedSummaries],
    centroid: new Map(centroidEntries(rest.centroid)),
  };
}
