// Sparse term vectors: only the terms a text has are stored, so a vector never grows with the
// vocabulary and two vectors built at different vocabulary sizes still compare (a missing term is
// a zero weight, never an undefined slot or a NaN).

export type SparseVector = ReadonlyMap<string, number>;

export function vectorNorm(vector: SparseVector): number {
  let sum = 0;
  for (const weight of vector.values()) sum += weight * weight;
  return Math.sqrt(sum);
}

/** Cosine similarity in [0, 1] for non-negative weights; 0 when either vector is empty or zero. */
export function cosineSimilarity(left: SparseVector, right: SparseVector): number {
  const leftNorm = vectorNorm(left);
  const rightNorm = vectorNorm(right);
  if (leftNorm === 0 || rightNorm === 0) return 0;
  // Iterate over the smaller map: the dot product only needs terms both have.
  const [small, large] = left.size <= right.size ? [left, right] : [right, left];
  let dot = 0;
  for (const [term, weight] of small) {
    const other = large.get(term);
    if (other !== undefined) dot += weight * other;
  }
  return dot / (leftNorm * rightNorm);
}

/** The vector scaled to length 1 (an empty or zero vector stays empty). */
export function normalize(vector: SparseVector): Map<string, number> {
  const norm = vectorNorm(vector);
  const result = new Map<string, number>();
  if (norm === 0) return result;
  for (const [term, weight] of vector) result.set(term, weight / norm);
  return result;
}

/**
 * The centroid of two clusters weighted by their sizes, so absorbing a singleton moves a cluster of
 * fifty only a fiftieth of the way. An empty side contributes nothing (its weight is dropped, not
 * averaged in as zeros), so a cluster whose turns had no words cannot pull a real centroid to zero.
 * Centroids are kept in term order: two of them are merged in one pass, in term order, with no sort.
 */
export function weightedCentroid(
  left: SparseVector,
  leftSize: number,
  right: SparseVector,
  rightSize: number,
): Map<string, number> {
  if (left.size === 0) return new Map(right);
  if (right.size === 0) return new Map(left);
  const total = leftSize + rightSize;
  const leftEntries = [...left];
  const rightEntries = [...right];
  if (!inTermOrder(leftEntries) || !inTermOrder(rightEntries)) {
    const result = new Map<string, number>();
    for (const [term, weight] of leftEntries) result.set(term, (weight * leftSize) / total);
    for (const [term, weight] of rightEntries) result.set(term, (result.get(term) ?? 0) + (weight * rightSize) / total);
    return result;
  }
  const merged: Array<[string, number]> = [];
  let i = 0;
  let j = 0;
  while (i < leftEntries.length || j < rightEntries.length) {
    const l = leftEntries[i];
    const r = rightEntries[j];
    if (l && (!r || l[0] < r[0])) {
      merged.push([l[0], (l[1] * leftSize) / total]);
      i += 1;
    } else if (r && (!l || r[0] < l[0])) {
      merged.push([r[0], 0 + (r[1] * rightSize) / total]);
      j += 1;
    } else if (l && r) {
      // The same sum, in the same order, as adding the right side onto the left one's share.
      merged.push([l[0], (l[1] * leftSize) / total + (r[1] * rightSize) / total]);
      i += 1;
      j += 1;
    }
  }
  return new Map(merged);
}

/**
 * Keeps the `limit` heaviest terms (ties broken by term, so the result is deterministic). Centroids
 * of merged clusters would otherwise hold every word of every member; the light tail barely moves a
 * cosine and costs storage on every compaction. The result is in term order: sums over a map run in
 * its order, and a centroid reloaded from storage (stored in term order) must give the same cosine
 * to the last bit as the one kept in memory, or a threshold decision could differ after a reload.
 * Linear in the terms but for one numeric sort of the weights (this runs on every graduation).
 */
export function keepHeaviestTerms(vector: SparseVector, limit: number): Map<string, number> {
  const entries = [...vector];
  if (!inTermOrder(entries)) entries.sort((a, b) => compareTerms(a[0], b[0]));
  if (entries.length <= limit) return new Map(entries);
  const weights = Float64Array.from(entries, (entry) => entry[1]).sort();
  // The limit-th heaviest weight: everything heavier stays, and as many of its ties as fit, lowest term first.
  const threshold = weights[weights.length - limit] as number;
  let ties = limit;
  for (const [, weight] of entries) if (weight > threshold) ties -= 1;
  const kept: Array<[string, number]> = [];
  for (const entry of entries) {
    if (entry[1] > threshold) kept.push(entry);
    else if (entry[1] === threshold && ties > 0) {
      kept.push(entry);
      ties -= 1;
    }
  }
  return new Map(kept);
}

function inTermOrder(entries: ReadonlyArray<[string, number]>): boolean {
  for (let index = 1; index < entries.length; index += 1) {
    if (!((entries[index - 1] as [string, number])[0] < (entries[index] as [string, number])[0])) return false;
  }
  return true;
}

function compareTerms(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Entries sorted by term: a stable form for serialization and comparison. */
export function vectorEntries(vector: SparseVector): Array<[string, number]> {
  return [...vector].sort((a, b) => compareTerms(a[0], b[0]));
}
