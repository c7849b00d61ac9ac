// What the forest takes in and hands out: graduating turns, clusters as readers see them, the
// results of graduation and of summarizing, and the forest as it is persisted (whole or as changes).

import type { ForestConfig } from './forest-config.ts';
import type { SparseVector } from './sparse-vector.ts';
import type { TfIdfState } from './tf-idf.ts';

export interface GraduatingTurn {
  id: string;
  text: string;
  tokens: number;
  timestamp: number;
}

/** A cluster as readers see it; `id` is its root turn's id. */
export interface Cluster {
  id: string;
  members: number;
  /** Sum of the members' own tokens (what expanding the cluster would cost). */
  memberTokens: number;
  summary: string | null;
  /** Bumped on each successful summary; a compaction records the version it used. */
  summaryVersion: number;
  /** True when members or merged clusters are not folded into `summary` yet. */
  dirty: boolean;
  /** Members added since the last summary, oldest first (in graduation order). */
  pending: string[];
  /** Summaries of clusters merged in since the last summary, not folded in yet. */
  absorbedSummaries: string[];
  centroid: SparseVector;
  firstTimestamp: number;
  lastTimestamp: number;
  /** Logical time of the last graduation or merge that touched the cluster (larger is newer). */
  touched: number;
  /** A dropped cluster is kept (and expandable) but takes no new members and is not injected. */
  dropped: boolean;
  /** Bumped on every change of membership: a summary started before a change is stale. */
  generation: number;
}

export interface GraduationResult {
  clusterId: string;
  /** The cluster the turn joined, or null when it started its own. */
  joined: string | null;
  similarity: number;
  /** Pairs merged to keep the cluster cap: `absorbed` now belongs to `kept`. */
  forcedMerges: Array<{ kept: string; absorbed: string; similarity: number }>;
}

export interface ClusterSummaryRequest {
  clusterId: string;
  /** The cluster's own summary then those of clusters merged into it, to fold together. */
  previousSummaries: string[];
  /** Members not yet in any summary, oldest first. */
  turns: Array<{ id: string; text: string; timestamp: number }>;
}

export type ClusterSummarizer = (request: ClusterSummaryRequest) => Promise<string>;

export interface ResolveDirtyResult {
  summarized: string[];
  /** Results discarded because the cluster changed while its summary was being made. */
  stale: string[];
  failed: Array<{ clusterId: string; error: unknown }>;
}

/** The parent pointers (and TF-IDF counts) written since the last takeChanges: what to persist. */
export interface ForestChanges {
  /** `graduated`: the node entered the forest; `merged`: a root that now points at another cluster. */
  nodes: Array<{ id: string; parent: string; kind: 'graduated' | 'merged' }>;
  documentCount: number;
  /** term → its current document frequency, for the terms that changed. */
  terms: Record<string, number>;
}

/** Serialized forest; parent pointers are indices into `nodes`. */
export interface ForestState {
  version: 1;
  config: ForestConfig;
  clock: number;
  tfidf: TfIdfState;
  nodes: Array<{ id: string; parent: number; tokens: number; timestamp: number; text?: string }>;
  clusters: Array<Omit<Cluster, 'centroid'> & { centroid: Array<[string, number]> }>;
}
