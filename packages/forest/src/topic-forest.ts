// The paper's union-find forest of topic clusters. Turns graduate into it one at a time; each joins
// the nearest cluster or starts its own, and a cap forces the closest pair to merge. Unions only
// mark clusters dirty: summaries are made later, one call per dirty cluster (resolveDirty), so the
// summarizer cost is linear in clusters, not quadratic in cluster size. Pure: no I/O, no clock.
// Storing it is the ledger's job (state(), takeChanges()).

import { ClusterNotFoundError, ForestIntegrityError, InvalidInputError } from '@agent-ledger/core';
import {
  type Centroid,
  centroidEntries,
  centroidOf,
  centroidSimilarity,
  mergeInto,
  scratchSimilarity,
  TermDictionary,
} from './centroid.ts';
import { type SparseVector, vectorNorm } from './sparse-vector.ts';
import { TfIdfModel, type TfIdfState } from './tf-idf.ts';

export interface ForestConfig {
  /** Cosine similarity at or above which a graduating turn joins the nearest cluster. */
  mergeThreshold: number;
  /** Most clusters kept live; past it the closest pair is merged. */
  maxClusters: number;
  /** Terms a centroid keeps (the heaviest). */
  maxCentroidTerms: number;
}

export const DEFAULT_FOREST_CONFIG: ForestConfig = { mergeThreshold: 0.15, maxClusters: 10, maxCentroidTerms: 256 };

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

interface NodeRecord {
  id: string;
  parent: string;
  sequence: number;
  tokens: number;
  timestamp: number;
  /** Kept only while the node waits to be folded into a summary. */
  text?: string;
  /** The next member of its cluster, and the next node waiting in its cluster's pending list. */
  nextMember: string | null;
  nextPending: string | null;
}

/**
 * Ids linked through the nodes (nextMember or nextPending), first to last: a union joins two in
 * O(1), where copying the smaller cluster's ids cost up to its size (the tail of the latency).
 */
interface IdChain {
  first: string | null;
  last: string | null;
}

type ChainLink = 'nextMember' | 'nextPending';

interface ClusterRecord extends Omit<Cluster, 'centroid' | 'pending' | 'absorbedSummaries'> {
  centroid: Centroid;
  pendingChain: IdChain;
  absorbedSummaries: string[];
  memberChain: IdChain;
}

export class TopicForest {
  readonly config: ForestConfig;
  private readonly tfidf: TfIdfModel;
  private readonly nodes = new Map<string, NodeRecord>();
  /** Live roots in insertion order: output order is stable for the same input. */
  private readonly roots: string[] = [];
  private readonly clusterRecords = new Map<string, ClusterRecord>();
  private time = 0;
  private readonly changedNodes = new Map<string, 'graduated' | 'merged'>();
  private readonly dictionary = new TermDictionary();
  /** Similarity of live cluster pairs (earlier root first), until either centroid changes. */
  private readonly pairSimilarities = new Map<string, Map<string, number>>();

  constructor(options: { config?: Partial<ForestConfig>; state?: ForestState } = {}) {
    this.config = { ...DEFAULT_FOREST_CONFIG, ...options.state?.config, ...options.config };
    validateConfig(this.config);
    this.tfidf = new TfIdfModel(options.state?.tfidf);
    if (options.state) this.load(options.state);
  }

  /** Logical time: graduations so far (what `touched` is measured in). */
  get clock(): number {
    return this.time;
  }

  get size(): number {
    return this.nodes.size;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /** Moves one turn from the hot window into the forest. Never calls a summarizer. */
  graduate(turn: GraduatingTurn): GraduationResult {
    if (this.nodes.has(turn.id))
      throw new ForestIntegrityError(`Turn ${turn.id} has already graduated into the forest.`, [turn.id]);
    const vector = this.tfidf.addDocument(turn.text);
    // The turn's own centroid (term order, ids assigned) serves the search for its nearest cluster too.
    const centroid = centroidOf(vector, this.config.maxCentroidTerms, this.dictionary, vector);
    const nearest = this.nearestToCentroid(vector, centroid);
    this.time += 1;
    this.addSingleton(turn, centroid);
    let clusterId = turn.id;
    let joined: string | null = null;
    if (nearest && nearest.similarity >= this.config.mergeThreshold) {
      clusterId = this.union(nearest.clusterId, turn.id);
      joined = nearest.clusterId;
    }
    const forcedMerges = this.enforceCap();
    return { clusterId: this.find(clusterId) ?? clusterId, joined, similarity: nearest?.similarity ?? 0, forcedMerges };
  }

  /** The root of the cluster holding `id`, or null when `id` never graduated. Compresses paths. */
  find(id: string): string | null {
    const start = this.nodes.get(id);
    if (!start) return null;
    const root = this.rootWithoutCompression(id);
    // Path compression: every node on the way now points straight at the root.
    let node = start;
    while (node.parent !== root && node.id !== root) {
      const next = this.nodes.get(node.parent) as NodeRecord;
      node.parent = root;
      node = next;
    }
    return root;
  }

  /**
   * Merges the clusters of `left` and `right` and returns the surviving root: the larger cluster's
   * (union by size), the earlier one's on a tie. Idempotent: the same cluster merges with nothing.
   */
  union(left: string, right: string): string {
    const leftRoot = this.requireRoot(left);
    const rightRoot = this.requireRoot(right);
    if (leftRoot === rightRoot) return leftRoot;
    const a = this.clusterRecords.get(leftRoot) as ClusterRecord;
    const b = this.clusterRecords.get(rightRoot) as ClusterRecord;
    const [kept, absorbed] =
      a.members > b.members || (a.members === b.members && this.roots.indexOf(a.id) < this.roots.indexOf(b.id)) ? [a, b] : [b, a];
    (this.nodes.get(absorbed.id) as NodeRecord).parent = kept.id;
    if (!this.changedNodes.has(absorbed.id)) this.changedNodes.set(absorbed.id, 'merged');
    mergeInto(kept.centroid, kept.members, absorbed.centroid, absorbed.members, this.config.maxCentroidTerms);
    this.forgetPairs(kept.id);
    this.forgetPairs(absorbed.id);
    kept.members += absorbed.members;
    kept.memberTokens += absorbed.memberTokens;
    this.appendChain(kept.memberChain, absorbed.memberChain, 'nextMember');
    this.appendChain(kept.pendingChain, absorbed.pendingChain, 'nextPending');
    if (absorbed.summary) kept.absorbedSummaries.push(absorbed.summary);
    for (const summary of absorbed.absorbedSummaries) kept.absorbedSummaries.push(summary);
    kept.firstTimestamp = Math.min(kept.firstTimestamp, absorbed.firstTimestamp);
    kept.lastTimestamp = Math.max(kept.lastTimestamp, absorbed.lastTimestamp);
    kept.touched = Math.max(this.time, kept.touched, absorbed.touched);
    kept.dirty = true;
    kept.generation += 1;
    kept.dropped = kept.dropped && absorbed.dropped;
    this.clusterRecords.delete(absorbed.id);
    this.roots.splice(this.roots.indexOf(absorbed.id), 1);
    return kept.id;
  }

  /** The member turn ids of a cluster, in graduation order. */
  expand(clusterId: string): string[] {
    const cluster = this.clusterRecords.get(clusterId);
    if (!cluster) throw new ClusterNotFoundError(clusterId, this.notARootDetail(clusterId));
    return this.inGraduationOrder(this.chainIds(cluster.memberChain, 'nextMember'));
  }

  /** The `k` live clusters most similar to `query` with similarity ≥ `minSimilarity`, best first. */
  nearest(query: string, k: number, minSimilarity = 0): Array<{ clusterId: string; similarity: number }> {
    return this.nearestToVector(this.tfidf.vectorize(query), k).filter(
      (hit) => hit.similarity >= minSimilarity && hit.similarity > 0,
    );
  }

  /** Every cluster, dropped ones too, in stable root order. */
  clusters(): Cluster[] {
    return this.roots.map((id) => this.view(this.clusterRecords.get(id) as ClusterRecord));
  }

  cluster(clusterId: string): Cluster {
    const cluster = this.clusterRecords.get(clusterId);
    if (!cluster) throw new ClusterNotFoundError(clusterId, this.notARootDetail(clusterId));
    return this.view(cluster);
  }

  dirtyClusterIds(): string[] {
    return this.roots.filter((id) => this.clusterRecords.get(id)?.dirty);
  }

  /** Stops (or resumes) giving a cluster new members and offering it to readers. */
  setDropped(clusterId: string, dropped: boolean): void {
    const cluster = this.clusterRecords.get(clusterId);
    if (!cluster) throw new ClusterNotFoundError(clusterId, this.notARootDetail(clusterId));
    cluster.dropped = dropped;
  }

  /**
   * One summarizer call per dirty cluster, in root order. A result is kept only if the cluster is
   * still the same root with the same members as when the call started (a merge in flight makes it
   * stale); a failed call leaves the cluster dirty with its pending members (and their text) intact.
   */
  async resolveDirty(summarize: ClusterSummarizer): Promise<ResolveDirtyResult> {
    const result: ResolveDirtyResult = { summarized: [], stale: [], failed: [] };
    for (const clusterId of this.dirtyClusterIds()) {
      const cluster = this.clusterRecords.get(clusterId);
      if (!cluster?.dirty) continue;
      const generation = cluster.generation;
      const request: ClusterSummaryRequest = {
        clusterId,
        previousSummaries: [...(cluster.summary ? [cluster.summary] : []), ...cluster.absorbedSummaries],
        turns: this.inGraduationOrder(this.chainIds(cluster.pendingChain, 'nextPending')).map((id) => {
          const node = this.nodes.get(id) as NodeRecord;
          return { id, text: node.text ?? '', timestamp: node.timestamp };
        }),
      };
      let summary: string;
      try {
        summary = await summarize(request);
      } catch (error) {
        result.failed.push({ clusterId, error });
        continue;
      }
      const current = this.clusterRecords.get(clusterId);
      if (!current || current.generation !== generation) {
        result.stale.push(clusterId);
        continue;
      }
      for (const id of this.chainIds(current.pendingChain, 'nextPending')) delete (this.nodes.get(id) as NodeRecord).text;
      current.summary = summary;
      current.summaryVersion += 1;
      current.pendingChain = { first: null, last: null };
      current.absorbedSummaries = [];
      current.dirty = false;
      result.summarized.push(clusterId);
    }
    return result;
  }

  /** Parent pointers set and TF-IDF counts changed since the last call (path compression is not recorded). */
  takeChanges(): ForestChanges {
    const nodes = [...this.changedNodes]
      .sort(([x], [y]) => this.sequenceOf(x) - this.sequenceOf(y))
      .map(([id, kind]) => ({ id, parent: (this.nodes.get(id) as NodeRecord).parent, kind }));
    this.changedNodes.clear();
    return { nodes, documentCount: this.tfidf.documents, terms: this.tfidf.takeChangedTerms() };
  }

  state(): ForestState {
    const ordered = [...this.nodes.values()].sort((a, b) => a.sequence - b.sequence);
    const index = new Map(ordered.map((node, position) => [node.id, position]));
    return {
      version: 1,
      config: { ...this.config },
      clock: this.time,
      tfidf: this.tfidf.state(),
      nodes: ordered.map((node) => ({
        id: node.id,
        parent: index.get(node.parent) as number,
        tokens: node.tokens,
        timestamp: node.timestamp,
        ...(node.text === undefined ? {} : { text: node.text }),
      })),
      clusters: this.roots.map((id) => {
        const { memberChain: _members, pendingChain, ...cluster } = this.clusterRecords.get(id) as ClusterRecord;
        return {
          ...cluster,
          pending: this.inGraduationOrder(this.chainIds(pendingChain, 'nextPending')),
          absorbedSummaries: [...cluster.absorbedSummaries],
          centroid: centroidEntries(cluster.centroid),
        };
      }),
    };
  }

  private load(state: ForestState): void {
    if (state.version !== 1) throw new ForestIntegrityError(`Unknown forest state version ${String(state.version)}.`);
    this.time = state.clock;
    state.nodes.forEach((node, sequence) => {
      const parent = state.nodes[node.parent];
      if (!parent)
        throw new ForestIntegrityError(`Node ${node.id} has parent index ${node.parent}, outside the forest.`, [node.id]);
      this.nodes.set(node.id, {
        id: node.id,
        parent: parent.id,
        sequence,
        tokens: node.tokens,
        timestamp: node.timestamp,
        text: node.text,
        nextMember: null,
        nextPending: null,
      });
    });
    const members = new Map<string, string[]>();
    for (const node of this.nodes.values()) {
      // Not find(): path compression here would make a reloaded forest's pointers differ from the saved ones.
      const root = this.rootWithoutCompression(node.id);
      const list = members.get(root);
      if (list) list.push(node.id);
      else members.set(root, [node.id]);
    }
    for (const cluster of state.clusters) {
      const memberIds = members.get(cluster.id) ?? [];
      if (memberIds.length !== cluster.members) {
        throw new ForestIntegrityError(
          `Cluster ${cluster.id} records ${cluster.members} members but ${memberIds.length} nodes lead to it.`,
          [cluster.id],
        );
      }
      const unknown = cluster.pending.filter((id) => !this.nodes.has(id));
      if (unknown.length > 0) {
        throw new ForestIntegrityError(`Cluster ${cluster.id} waits to summarize ${unknown.join(', ')}, not in the forest.`, [
          cluster.id,
          ...unknown,
        ]);
      }
      const { pending, ...stored } = cluster;
      this.clusterRecords.set(cluster.id, {
        ...stored,
        pendingChain: this.linkChain(this.inGraduationOrder(pending), 'nextPending'),
        absorbedSummaries: [...cluster.absorbedSummaries],
        // As stored (never trimmed again): the same terms, in the same order, as the live one had.
        centroid: centroidOf(cluster.centroid, Number.POSITIVE_INFINITY, this.dictionary),
        memberChain: this.linkChain(memberIds, 'nextMember'),
      });
      this.roots.push(cluster.id);
    }
    const orphans = [...members.keys()].filter((root) => !this.clusterRecords.has(root));
    if (orphans.length > 0) throw new ForestIntegrityError(`Roots without a cluster record: ${orphans.join(', ')}.`, orphans);
  }

  /** Follows parent pointers to the root, checking for cycles and dangling pointers. */
  private rootWithoutCompression(id: string): string {
    let node = this.nodes.get(id) as NodeRecord;
    // A walk longer than the forest has nodes is a cycle: only then are the visited nodes collected
    // (for the error), so the common walk of a step or two allocates nothing.
    for (let steps = 0; node.parent !== node.id; steps += 1) {
      if (steps > this.nodes.size) this.throwCycle(id);
      const parent = this.nodes.get(node.parent);
      if (!parent)
        throw new ForestIntegrityError(`Node ${node.id} points at ${node.parent}, which is not in the forest.`, [node.id]);
      node = parent;
    }
    return node.id;
  }

  private throwCycle(id: string): never {
    const visited = new Set<string>();
    let node = this.nodes.get(id) as NodeRecord;
    while (!visited.has(node.id)) {
      visited.add(node.id);
      node = this.nodes.get(node.parent) as NodeRecord;
    }
    throw new ForestIntegrityError(`Parent pointers from ${id} form a cycle.`, [...visited]);
  }

  private addSingleton(turn: GraduatingTurn, centroid: Centroid): void {
    this.nodes.set(turn.id, {
      id: turn.id,
      parent: turn.id,
      sequence: this.nodes.size,
      tokens: turn.tokens,
      timestamp: turn.timestamp,
      text: turn.text,
      nextMember: null,
      nextPending: null,
    });
    this.changedNodes.set(turn.id, 'graduated');
    this.clusterRecords.set(turn.id, {
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
      touched: this.time,
      dropped: false,
      memberChain: { first: turn.id, last: turn.id },
      generation: 0,
    });
    this.roots.push(turn.id);
  }

  /** Merges the closest pair of live clusters until at most maxClusters are live. */
  private enforceCap(): GraduationResult['forcedMerges'] {
    const merges: GraduationResult['forcedMerges'] = [];
    for (;;) {
      const live = this.roots.filter((id) => !(this.clusterRecords.get(id) as ClusterRecord).dropped);
      if (live.length <= this.config.maxClusters) return merges;
      let best: { left: string; right: string; similarity: number } | null = null;
      for (let i = 0; i < live.length; i += 1) {
        for (let j = i + 1; j < live.length; j += 1) {
          const left = live[i] as string;
          const right = live[j] as string;
          const similarity = this.pairSimilarity(left, right);
          if (!best || similarity > best.similarity) best = { left, right, similarity };
        }
      }
      if (!best) return merges;
      const kept = this.union(best.left, best.right);
      merges.push({ kept, absorbed: kept === best.left ? best.right : best.left, similarity: best.similarity });
    }
  }

  /** Cached: a pair's similarity changes only when one of the two centroids does (a union). */
  private pairSimilarity(left: string, right: string): number {
    let row = this.pairSimilarities.get(left);
    const cached = row?.get(right);
    if (cached !== undefined) return cached;
    const similarity = centroidSimilarity(this.centroidOf(left), this.centroidOf(right), this.dictionary);
    if (!row) {
      row = new Map();
      this.pairSimilarities.set(left, row);
    }
    row.set(right, similarity);
    return similarity;
  }

  private forgetPairs(clusterId: string): void {
    this.pairSimilarities.delete(clusterId);
    for (const row of this.pairSimilarities.values()) row.delete(clusterId);
  }

  /**
   * The `k` live clusters nearest `vector`, best first (ties: the earlier root). The vector's
   * weights are spread by term id once, then each centroid reads them in its own term order.
   */
  private nearestToVector(vector: SparseVector, k: number): Array<{ clusterId: string; similarity: number }> {
    if (k <= 0) return [];
    const scratch = this.dictionary.scratch();
    const written: number[] = [];
    for (const [term, weight] of vector) {
      const id = this.dictionary.find(term);
      if (id !== undefined) {
        scratch[id] = weight;
        written.push(id);
      }
    }
    const norm = vectorNorm(vector);
    const scored: Array<{ clusterId: string; order: number; similarity: number }> = [];
    let order = 0;
    for (const clusterId of this.roots) {
      const cluster = this.clusterRecords.get(clusterId) as ClusterRecord;
      if (cluster.dropped) continue;
      scored.push({ clusterId, order, similarity: scratchSimilarity(scratch, norm, cluster.centroid) });
      order += 1;
    }
    for (const id of written) scratch[id] = 0;
    if (k === 1) {
      let best = scored[0];
      for (const hit of scored) if (best && hit.similarity > best.similarity) best = hit;
      return best ? [{ clusterId: best.clusterId, similarity: best.similarity }] : [];
    }
    scored.sort((a, b) => b.similarity - a.similarity || a.order - b.order);
    return scored.slice(0, k).map(({ clusterId, similarity }) => ({ clusterId, similarity }));
  }

  /**
   * nearestToVector(vector, 1) for a graduating turn whose untrimmed terms, weights and ids are in
   * `own`: no lookup of its terms again.
   */
  private nearestToCentroid(
    vector: SparseVector,
    own: Centroid & { untrimmed: Centroid },
  ): { clusterId: string; similarity: number } | undefined {
    const { ids, weights } = own.untrimmed;
    const scratch = this.dictionary.scratch();
    for (let index = 0; index < ids.length; index += 1) scratch[ids[index] as number] = weights[index] as number;
    const norm = vectorNorm(vector);
    let best: { clusterId: string; similarity: number } | undefined;
    for (const clusterId of this.roots) {
      const cluster = this.clusterRecords.get(clusterId) as ClusterRecord;
      if (cluster.dropped) continue;
      const similarity = scratchSimilarity(scratch, norm, cluster.centroid);
      if (!best || similarity > best.similarity) best = { clusterId, similarity };
    }
    for (let index = 0; index < ids.length; index += 1) scratch[ids[index] as number] = 0;
    return best;
  }

  private centroidOf(clusterId: string): Centroid {
    return (this.clusterRecords.get(clusterId) as ClusterRecord).centroid;
  }

  private requireRoot(id: string): string {
    const root = this.find(id);
    if (root === null) throw new ClusterNotFoundError(id, 'that id never graduated into this forest.');
    return root;
  }

  private inGraduationOrder(ids: readonly string[]): string[] {
    return [...ids].sort((x, y) => this.sequenceOf(x) - this.sequenceOf(y));
  }

  private sequenceOf(id: string): number {
    return this.nodes.get(id)?.sequence ?? Number.MAX_SAFE_INTEGER;
  }

  private notARootDetail(id: string): string {
    const root = this.find(id);
    if (root === null) return 'that id is not in this forest (the turn has not graduated, or it is not a topic id).';
    return `it is a member of topic ${root}, not a topic root; use ${root}.`;
  }

  /** Links `ids` in order through `link`. */
  private linkChain(ids: readonly string[], link: ChainLink): IdChain {
    for (let index = 1; index < ids.length; index += 1) {
      (this.nodes.get(ids[index - 1] as string) as NodeRecord)[link] = ids[index] as string;
    }
    return { first: ids[0] ?? null, last: ids.at(-1) ?? null };
  }

  /** `from`'s ids after `into`'s (`from` is not used again). */
  private appendChain(into: IdChain, from: IdChain, link: ChainLink): void {
    if (from.first === null) return;
    if (into.last === null) into.first = from.first;
    else (this.nodes.get(into.last) as NodeRecord)[link] = from.first;
    into.last = from.last;
  }

  /** The ids of a chain, first to last (a link past `last` is stale: the list it led to was cleared). */
  private chainIds(chain: IdChain, link: ChainLink): string[] {
    const ids: string[] = [];
    let id = chain.first;
    while (id !== null) {
      ids.push(id);
      if (id === chain.last) break;
      id = (this.nodes.get(id) as NodeRecord)[link];
    }
    return ids;
  }

  private view(cluster: ClusterRecord): Cluster {
    const { memberChain: _members, pendingChain, ...rest } = cluster;
    return {
      ...rest,
      pending: this.inGraduationOrder(this.chainIds(pendingChain, 'nextPending')),
      absorbedSummaries: [...rest.absorbedSummaries],
      centroid: new Map(centroidEntries(rest.centroid)),
    };
  }
}

function validateConfig(config: ForestConfig): void {
  if (typeof config.mergeThreshold !== 'number' || !Number.isFinite(config.mergeThreshold)) {
    throw new InvalidInputError(`mergeThreshold must be a number; got ${String(config.mergeThreshold)}.`, 'mergeThreshold');
  }
  for (const field of ['maxClusters', 'maxCentroidTerms'] as const) {
    if (!Number.isInteger(config[field]) || config[field] < 1) {
      throw new InvalidInputError(`${field} must be a whole number, 1 or more; got ${String(config[field])}.`, field);
    }
  }
}
