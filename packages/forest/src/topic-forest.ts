// The paper's union-find forest of topic clusters. Turns graduate into it one at a time; each joins
// the nearest cluster or starts its own, and a cap forces the closest pair to merge. Unions only
// mark clusters dirty: summaries are made later, one call per dirty cluster (resolveDirty), so the
// summarizer cost is linear in clusters, not quadratic in cluster size. Pure: no I/O, no clock.
// Storing it is the ledger's job (state(), takeChanges()).

import { ClusterNotFoundError, ForestIntegrityError } from '@agent-ledger/core';
import { centroidOf, TermDictionary } from './centroid.ts';
import { absorbCluster, type ClusterRecord, type ClusterTable, clusterView, singletonCluster } from './cluster-records.ts';
import { nearestToCentroid, nearestToVector, PairSimilarities, type SearchSpace } from './cluster-search.ts';
import { resolveDirtyClusters } from './cluster-summaries.ts';
import { DEFAULT_FOREST_CONFIG, type ForestConfig, validateConfig } from './forest-config.ts';
import { ForestNodes } from './forest-nodes.ts';
import { restoreForest, serializeForest } from './forest-state.ts';
import type {
  Cluster,
  ClusterSummarizer,
  ForestChanges,
  ForestState,
  GraduatingTurn,
  GraduationResult,
  ResolveDirtyResult,
} from './forest-types.ts';
import { TfIdfModel } from './tf-idf.ts';

export class TopicForest {
  readonly config: ForestConfig;
  private readonly tfidf: TfIdfModel;
  private readonly table: ClusterTable = { nodes: new ForestNodes(), roots: [], records: new Map<string, ClusterRecord>() };
  private time = 0;
  private readonly changedNodes = new Map<string, 'graduated' | 'merged'>();
  private readonly dictionary = new TermDictionary();
  private readonly space: SearchSpace = { table: this.table, dictionary: this.dictionary };
  private readonly pairs = new PairSimilarities(this.space);

  constructor(options: { config?: Partial<ForestConfig>; state?: ForestState } = {}) {
    this.config = { ...DEFAULT_FOREST_CONFIG, ...options.state?.config, ...options.config };
    validateConfig(this.config);
    this.tfidf = new TfIdfModel(options.state?.tfidf);
    if (options.state) {
      restoreForest(this.table, options.state, this.dictionary);
      this.time = options.state.clock;
    }
  }

  /** Logical time: graduations so far (what `touched` is measured in). */
  get clock(): number {
    return this.time;
  }

  get size(): number {
    return this.table.nodes.size;
  }

  has(id: string): boolean {
    return this.table.nodes.has(id);
  }

  /** Moves one turn from the hot window into the forest. Never calls a summarizer. */
  graduate(turn: GraduatingTurn): GraduationResult {
    if (this.table.nodes.has(turn.id))
      throw new ForestIntegrityError(`Turn ${turn.id} has already graduated into the forest.`, [turn.id]);
    const vector = this.tfidf.addDocument(turn.text);
    // The turn's own centroid (term order, ids assigned) serves the search for its nearest cluster too.
    const centroid = centroidOf(vector, this.config.maxCentroidTerms, this.dictionary, vector);
    const nearest = nearestToCentroid(this.space, vector, centroid);
    this.time += 1;
    this.addSingleton(turn, singletonCluster(turn, centroid, this.time));
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
    return this.table.nodes.find(id);
  }

  /**
   * Merges the clusters of `left` and `right` and returns the surviving root: the larger cluster's
   * (union by size), the earlier one's on a tie. Idempotent: the same cluster merges with nothing.
   */
  union(left: string, right: string): string {
    const leftRoot = this.requireRoot(left);
    const rightRoot = this.requireRoot(right);
    if (leftRoot === rightRoot) return leftRoot;
    const { nodes, roots, records } = this.table;
    const a = records.get(leftRoot) as ClusterRecord;
    const b = records.get(rightRoot) as ClusterRecord;
    const [kept, absorbed] =
      a.members > b.members || (a.members === b.members && roots.indexOf(a.id) < roots.indexOf(b.id)) ? [a, b] : [b, a];
    nodes.node(absorbed.id).parent = kept.id;
    if (!this.changedNodes.has(absorbed.id)) this.changedNodes.set(absorbed.id, 'merged');
    absorbCluster({ kept, absorbed, nodes, time: this.time, maxCentroidTerms: this.config.maxCentroidTerms });
    this.pairs.forget(kept.id);
    this.pairs.forget(absorbed.id);
    records.delete(absorbed.id);
    roots.splice(roots.indexOf(absorbed.id), 1);
    return kept.id;
  }

  /** The member turn ids of a cluster, in graduation order. */
  expand(clusterId: string): string[] {
    const { nodes } = this.table;
    return nodes.inGraduationOrder(nodes.chainIds(this.requireCluster(clusterId).memberChain, 'nextMember'));
  }

  /** The `k` live clusters most similar to `query` with similarity ≥ `minSimilarity`, best first. */
  nearest(query: string, k: number, minSimilarity = 0): Array<{ clusterId: string; similarity: number }> {
    return nearestToVector(this.space, this.tfidf.vectorize(query), k).filter(
      (hit) => hit.similarity >= minSimilarity && hit.similarity > 0,
    );
  }

  /** Every cluster, dropped ones too, in stable root order. */
  clusters(): Cluster[] {
    return this.table.roots.map((id) => clusterView(this.table.records.get(id) as ClusterRecord, this.table.nodes));
  }

  cluster(clusterId: string): Cluster {
    return clusterView(this.requireCluster(clusterId), this.table.nodes);
  }

  dirtyClusterIds(): string[] {
    return this.table.roots.filter((id) => this.table.records.get(id)?.dirty);
  }

  /** Stops (or resumes) giving a cluster new members and offering it to readers. */
  setDropped(clusterId: string, dropped: boolean): void {
    this.requireCluster(clusterId).dropped = dropped;
  }

  /** One summarizer call per dirty cluster, in root order (see resolveDirtyClusters for what is kept). */
  resolveDirty(summarize: ClusterSummarizer): Promise<ResolveDirtyResult> {
    return resolveDirtyClusters(this.table, summarize);
  }

  /** Parent pointers set and TF-IDF counts changed since the last call (path compression is not recorded). */
  takeChanges(): ForestChanges {
    const { nodes: forestNodes } = this.table;
    const nodes = [...this.changedNodes]
      .sort(([x], [y]) => forestNodes.sequenceOf(x) - forestNodes.sequenceOf(y))
      .map(([id, kind]) => ({ id, parent: forestNodes.node(id).parent, kind }));
    this.changedNodes.clear();
    return { nodes, documentCount: this.tfidf.documents, terms: this.tfidf.takeChangedTerms() };
  }

  state(): ForestState {
    return serializeForest(this.table, { config: this.config, clock: this.time, tfidf: this.tfidf });
  }

  private addSingleton(turn: GraduatingTurn, cluster: ClusterRecord): void {
    const { nodes, roots, records } = this.table;
    nodes.add({
      id: turn.id,
      parent: turn.id,
      sequence: nodes.size,
      tokens: turn.tokens,
      timestamp: turn.timestamp,
      text: turn.text,
      nextMember: null,
      nextPending: null,
    });
    this.changedNodes.set(turn.id, 'graduated');
    records.set(turn.id, cluster);
    roots.push(turn.id);
  }

  /** Merges the closest pair of live clusters until at most maxClusters are live. */
  private enforceCap(): GraduationResult['forcedMerges'] {
    const merges: GraduationResult['forcedMerges'] = [];
    for (;;) {
      const live = this.table.roots.filter((id) => !(this.table.records.get(id) as ClusterRecord).dropped);
      if (live.length <= this.config.maxClusters) return merges;
      const best = this.pairs.closestPair(live);
      if (!best) return merges;
      const kept = this.union(best.left, best.right);
      merges.push({ kept, absorbed: kept === best.left ? best.right : best.left, similarity: best.similarity });
    }
  }

  private requireRoot(id: string): string {
    const root = this.find(id);
    if (root === null) throw new ClusterNotFoundError(id, 'that id never graduated into this forest.');
    return root;
  }

  private requireCluster(clusterId: string): ClusterRecord {
    const cluster = this.table.records.get(clusterId);
    if (!cluster) throw new ClusterNotFoundError(clusterId, this.notARootDetail(clusterId));
    return cluster;
  }

  private notARootDetail(id: string): string {
    const root = this.find(id);
    if (root === null) return 'that id is not in this forest (the turn has not graduated, or it is not a topic id).';
    return `it is a member of topic ${root}, not a topic root; use ${root}.`;
  }
}
