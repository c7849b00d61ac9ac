// Similarity searches over the live clusters: the nearest to a query vector, the nearest to a
// graduating turn, and the closest pair (what the cluster cap merges), with pair figures cached.

import { type Centroid, centroidSimilarity, scratchSimilarity, type TermDictionary } from './centroid.ts';
import type { ClusterRecord, ClusterTable } from './cluster-records.ts';
import { type SparseVector, vectorNorm } from './sparse-vector.ts';

export interface ClusterHit {
  clusterId: string;
  similarity: number;
}

/** The live clusters to search and the dictionary their centroids' term ids come from. */
export interface SearchSpace {
  table: ClusterTable;
  dictionary: TermDictionary;
}

/**
 * The `k` live clusters nearest `vector`, best first (ties: the earlier root). The vector's
 * weights are spread by term id once, then each centroid reads them in its own term order.
 */
export function nearestToVector({ table, dictionary }: SearchSpace, vector: SparseVector, k: number): ClusterHit[] {
  if (k <= 0) return [];
  const scratch = dictionary.scratch();
  const written: number[] = [];
  for (const [term, weight] of vector) {
    const id = dictionary.find(term);
    if (id !== undefined) {
      scratch[id] = weight;
      written.push(id);
    }
  }
  const norm = vectorNorm(vector);
  const scored: Array<{ clusterId: string; order: number; similarity: number }> = [];
  let order = 0;
  for (const clusterId of table.roots) {
    const cluster = table.records.get(clusterId) as ClusterRecord;
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
export function nearestToCentroid(
  { table, dictionary }: SearchSpace,
  vector: SparseVector,
  own: Centroid & { untrimmed: Centroid },
): ClusterHit | undefined {
  const { ids, weights } = own.untrimmed;
  const scratch = dictionary.scratch();
  for (let index = 0; index < ids.length; index += 1) scratch[ids[index] as number] = weights[index] as number;
  const norm = vectorNorm(vector);
  let best: ClusterHit | undefined;
  for (const clusterId of table.roots) {
    const cluster = table.records.get(clusterId) as ClusterRecord;
    if (cluster.dropped) continue;
    const similarity = scratchSimilarity(scratch, norm, cluster.centroid);
    if (!best || similarity > best.similarity) best = { clusterId, similarity };
  }
  for (let index = 0; index < ids.length; index += 1) scratch[ids[index] as number] = 0;
  return best;
}

/** Similarity of live cluster pairs (earlier root first), until either centroid changes. */
export class PairSimilarities {
  private readonly rows = new Map<string, Map<string, number>>();
  private readonly space: SearchSpace;

  constructor(space: SearchSpace) {
    this.space = space;
  }

  /** The most similar pair among `live` (earlier root first; ties: the first found), or null. */
  closestPair(live: readonly string[]): { left: string; right: string; similarity: number } | null {
    let best: { left: string; right: string; similarity: number } | null = null;
    for (let i = 0; i < live.length; i += 1) {
      for (let j = i + 1; j < live.length; j += 1) {
        const left = live[i] as string;
        const right = live[j] as string;
        const similarity = this.similarity(left, right);
        if (!best || similarity > best.similarity) best = { left, right, similarity };
      }
    }
    return best;
  }

  /** Drops every figure involving the cluster (its centroid changed, or it is gone). */
  forget(clusterId: string): void {
    this.rows.delete(clusterId);
    for (const row of this.rows.values()) row.delete(clusterId);
  }

  /** Cached: a pair's similarity changes only when one of the two centroids does (a union). */
  private similarity(left: string, right: string): number {
    let row = this.rows.get(left);
    const cached = row?.get(right);
    if (cached !== undefined) return cached;
    const similarity = centroidSimilarity(this.centroidOf(left), this.centroidOf(right), this.space.dictionary);
    if (!row) {
      row = new Map();
      this.rows.set(left, row);
    }
    row.set(right, similarity);
    return similarity;
  }

  private centroidOf(clusterId: string): Centroid {
    return (this.space.table.records.get(clusterId) as ClusterRecord).centroid;
  }
}
