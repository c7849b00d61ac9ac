// Cluster centroids as the forest keeps them: terms in term order beside their weights (parallel
// arrays, no Map: building a Map of a few hundred terms on every union cost more than the rest of
// a graduation), the norm computed once. Every similarity sums over the centroid's terms in term
// order, so a centroid read back from storage (stored in term order) gives the same figure to the
// last bit as the live one, and a reader holding only the stored centroid (a context built from one
// compaction's rows) gets the very figure the forest's own `nearest` gives.

import type { SparseVector } from './sparse-vector.ts';

export interface Centroid {
  /** Strictly increasing. */
  readonly terms: readonly string[];
  readonly weights: readonly number[];
  readonly norm: number;
  /** Each term's id in the forest's term dictionary (lookups only, never an order). */
  readonly ids: readonly number[];
}

/** Term → a small integer, so similarities read a dense array instead of hashing strings. */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  private scratchWeights = new Float64Array(1024);

  get size(): number {
    return this.ids.size;
  }

  /** The term's id, or undefined for a term no centroid ever held. */
  find(term: string): number | undefined {
    return this.ids.get(term);
  }

  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(term, id);
    }
    return id;
  }

  /** A zeroed array with a slot per known term; callers put back the zeros they overwrite. */
  scratch(): Float64Array {
    if (this.scratchWeights.length < this.ids.size) {
      this.scratchWeights = new Float64Array(Math.max(this.ids.size, this.scratchWeights.length * 2));
    }
    return this.scratchWeights;
  }
}

function normOf(weights: readonly number[]): number {
  let sum = 0;
  for (const weight of weights) sum += weight * weight;
  return Math.sqrt(sum);
}

function compareTerms(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The centroid of entries in any order (a vector, or stored entries), its `limit` heaviest terms kept. */
export function centroidOf(entries: Iterable<readonly [string, number]>, limit: number, dictionary: TermDictionary): Centroid {
  const weightOf = new Map(entries);
  // The default sort compares strings as `<` does (UTF-16 code units), without a callback per comparison.
  const terms = [...weightOf.keys()].sort();
  return trimmed(
    terms,
    terms.map((term) => weightOf.get(term) as number),
    terms.map((term) => dictionary.id(term)),
    limit,
  );
}

/** A stored centroid (entries in term order) as `querySimilarity` reads it, norm included. */
export function storedCentroid(entries: ReadonlyArray<readonly [string, number]>): Pick<Centroid, 'terms' | 'weights' | 'norm'> {
  const list = [...entries].sort((a, b) => compareTerms(a[0], b[0]));
  const weights = list.map((entry) => entry[1]);
  return { terms: list.map((entry) => entry[0]), weights, norm: normOf(weights) };
}

/** The centroid as a map, in term order (for readers and storage). */
export function centroidEntries(centroid: Centroid): Array<[string, number]> {
  return centroid.terms.map((term, index) => [term, centroid.weights[index] as number]);
}

/**
 * The centroid of two clusters weighted by their sizes (see weightedCentroid): an empty side
 * contributes nothing. One merge of the two term-ordered lists, then the `limit` heaviest terms.
 */
export function mergeCentroids(left: Centroid, leftSize: number, right: Centroid, rightSize: number, limit: number): Centroid {
  if (left.terms.length === 0) return trimmed([...right.terms], [...right.weights], [...right.ids], limit);
  if (right.terms.length === 0) return trimmed([...left.terms], [...left.weights], [...left.ids], limit);
  const total = leftSize + rightSize;
  const terms: string[] = [];
  const weights: number[] = [];
  const ids: number[] = [];
  let i = 0;
  let j = 0;
  const leftCount = left.terms.length;
  const rightCount = right.terms.length;
  while (i < leftCount || j < rightCount) {
    const l = i < leftCount ? (left.terms[i] as string) : null;
    const r = j < rightCount ? (right.terms[j] as string) : null;
    if (l !== null && (r === null || l < r)) {
      terms.push(l);
      ids.push(left.ids[i] as number);
      weights.push(((left.weights[i] as number) * leftSize) / total);
      i += 1;
    } else if (r !== null && (l === null || r < l)) {
      terms.push(r);
      ids.push(right.ids[j] as number);
      weights.push(((right.weights[j] as number) * rightSize) / total);
      j += 1;
    } else {
      terms.push(l as string);
      ids.push(left.ids[i] as number);
      weights.push(((left.weights[i] as number) * leftSize) / total + ((right.weights[j] as number) * rightSize) / total);
      i += 1;
      j += 1;
    }
  }
  return trimmed(terms, weights, ids, limit);
}

/**
 * Keeps the `limit` heaviest terms (ties: the lower term stays), in term order. The lightest are
 * found by selection, not by sorting every term.
 */
function trimmed(terms: string[], weights: number[], ids: number[], limit: number): Centroid {
  if (terms.length > limit) {
    const threshold = kthLargest(weights, limit);
    let ties = limit;
    for (const weight of weights) if (weight > threshold) ties -= 1;
    // Compacted in place: these arrays are this call's own.
    let kept = 0;
    for (let index = 0; index < terms.length; index += 1) {
      const weight = weights[index] as number;
      if (weight > threshold || (weight === threshold && ties-- > 0)) {
        terms[kept] = terms[index] as string;
        weights[kept] = weight;
        ids[kept] = ids[index] as number;
        kept += 1;
      }
    }
    terms.length = kept;
    weights.length = kept;
    ids.length = kept;
  }
  return { terms, weights, ids, norm: normOf(weights) };
}

let selection = new Float64Array(512);

/** The k-th largest of `values` (1-based), by quickselect on a reused copy. */
function kthLargest(values: readonly number[], k: number): number {
  if (selection.length < values.length) selection = new Float64Array(values.length * 2);
  const work = selection;
  for (let index = 0; index < values.length; index += 1) work[index] = values[index] as number;
  let low = 0;
  let high = values.length - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = work[(low + high) >> 1] as number;
    let i = low;
    let j = high;
    while (i <= j) {
      while ((work[i] as number) > pivot) i += 1;
      while ((work[j] as number) < pivot) j -= 1;
      if (i <= j) {
        const swap = work[i] as number;
        work[i] = work[j] as number;
        work[j] = swap;
        i += 1;
        j -= 1;
      }
    }
    if (target <= j) high = j;
    else if (target >= i) low = i;
    else return work[target] as number;
  }
  return work[target] as number;
}

/**
 * Cosine similarity of a query vector and a centroid, summed over the centroid's terms in term
 * order; 0 when either is empty or zero. For a reader holding a stored centroid (no dictionary).
 */
export function querySimilarity(
  query: SparseVector,
  queryNorm: number,
  centroid: Pick<Centroid, 'terms' | 'weights' | 'norm'>,
): number {
  if (queryNorm === 0 || centroid.norm === 0) return 0;
  let dot = 0;
  const { terms, weights } = centroid;
  for (let index = 0; index < terms.length; index += 1) {
    const weight = query.get(terms[index] as string);
    if (weight !== undefined) dot += weight * (weights[index] as number);
  }
  return dot / (queryNorm * centroid.norm);
}

/**
 * The same figure as querySimilarity, the query's weights spread in `scratch` by term id (a slot
 * is 0 when the query lacks the term; a query weight is never 0).
 */
export function scratchSimilarity(scratch: Float64Array, queryNorm: number, centroid: Centroid): number {
  if (queryNorm === 0 || centroid.norm === 0) return 0;
  let dot = 0;
  const { ids, weights } = centroid;
  for (let index = 0; index < ids.length; index += 1) {
    const weight = scratch[ids[index] as number] as number;
    if (weight !== 0) dot += weight * (weights[index] as number);
  }
  return dot / (queryNorm * centroid.norm);
}

/** Cosine similarity of two centroids, summed over `right`'s terms in term order. */
export function centroidSimilarity(left: Centroid, right: Centroid, dictionary: TermDictionary): number {
  if (left.norm === 0 || right.norm === 0) return 0;
  const scratch = dictionary.scratch();
  for (let index = 0; index < left.ids.length; index += 1) scratch[left.ids[index] as number] = left.weights[index] as number;
  const similarity = scratchSimilarity(scratch, left.norm, right);
  for (const id of left.ids) scratch[id] = 0;
  return similarity;
}
