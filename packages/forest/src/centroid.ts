// Cluster centroids as the forest keeps them: terms in term order beside their weights (parallel
// arrays, typed where they hold numbers; no Map: building a Map of a few hundred terms on every
// union cost more than the rest of a graduation), the norm computed once. Every similarity sums
// over the centroid's terms in term order, so a centroid read back from storage (stored in term
// order) gives the same figure to the last bit as the live one, and a reader holding only the
// stored centroid (a context built from one compaction's rows) gets the very figure the forest's
// own `nearest` gives.

import type { SparseVector } from './sparse-vector.ts';

/**
 * The entries are the first `terms.length` of each array: the typed arrays may be longer (a
 * cluster's centroid is merged in place, in arrays sized for the term cap).
 */
export interface Centroid {
  /** Strictly increasing. */
  terms: string[];
  weights: Float64Array;
  norm: number;
  /** Each term's id in the forest's term dictionary (lookups only, never an order). */
  ids: Int32Array;
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

function normOf(weights: Float64Array, count = weights.length): number {
  let sum = 0;
  for (let index = 0; index < count; index += 1) {
    const weight = weights[index] as number;
    sum += weight * weight;
  }
  return Math.sqrt(sum);
}

/** The centroid of entries in any order (a vector, or stored entries), its `limit` heaviest terms kept. */
export function centroidOf(entries: Iterable<readonly [string, number]>, limit: number, dictionary: TermDictionary): Centroid;
/** The same, keeping the untrimmed terms, weights and ids beside it (a graduating turn's vector). */
export function centroidOf(
  entries: Iterable<readonly [string, number]>,
  limit: number,
  dictionary: TermDictionary,
  keepUntrimmed: unknown,
): Centroid & { untrimmed: Centroid };
export function centroidOf(
  entries: Iterable<readonly [string, number]>,
  limit: number,
  dictionary: TermDictionary,
  keepUntrimmed?: unknown,
): Centroid | (Centroid & { untrimmed: Centroid }) {
  const weightOf = entries instanceof Map ? (entries as ReadonlyMap<string, number>) : new Map(entries);
  // The default sort compares strings as `<` does (UTF-16 code units), without a callback per comparison.
  const terms = [...weightOf.keys()].sort();
  const weights = new Float64Array(terms.length);
  const ids = new Int32Array(terms.length);
  for (let index = 0; index < terms.length; index += 1) {
    const term = terms[index] as string;
    weights[index] = weightOf.get(term) as number;
    ids[index] = dictionary.id(term);
  }
  // `whole` is read for its terms, weights and ids only (its norm is not needed then).
  const whole: Centroid = { terms, weights, ids, norm: terms.length <= limit ? normOf(weights) : 0 };
  let centroid = whole;
  if (terms.length > limit) {
    centroid = { terms: [], weights: new Float64Array(limit), ids: new Int32Array(limit), norm: 0 };
    trimInto(centroid, { terms, weights, ids, count: terms.length }, limit);
  }
  return keepUntrimmed === undefined ? centroid : { ...centroid, untrimmed: whole };
}

/** A stored centroid (entries in term order) as `querySimilarity` reads it, norm included. */
export function storedCentroid(entries: ReadonlyArray<readonly [string, number]>): Pick<Centroid, 'terms' | 'weights' | 'norm'> {
  const weightOf = new Map(entries);
  const terms = [...weightOf.keys()].sort();
  const weights = Float64Array.from(terms, (term) => weightOf.get(term) as number);
  return { terms, weights, norm: normOf(weights) };
}

/** The centroid as a map, in term order (for readers and storage). */
export function centroidEntries(centroid: Centroid): Array<[string, number]> {
  return centroid.terms.map((term, index) => [term, centroid.weights[index] as number]);
}

/** Two clusters' centroids, each with its cluster's size, and how many terms the result keeps. */
export interface CentroidMerge {
  left: Centroid;
  leftSize: number;
  right: Centroid;
  rightSize: number;
  limit: number;
}

/**
 * The centroid of two clusters weighted by their sizes (see weightedCentroid): an empty side
 * contributes nothing. One merge of the two term-ordered lists, then the `limit` heaviest terms.
 * A new centroid; the forest merges in place (mergeInto).
 */
export function mergeCentroids(merge: CentroidMerge): Centroid {
  const { left } = merge;
  const count = left.terms.length;
  const copy: Centroid = {
    terms: [...left.terms],
    weights: left.weights.slice(0, count),
    ids: left.ids.slice(0, count),
    norm: left.norm,
  };
  mergeInto({ ...merge, left: copy });
  return copy;
}

/** mergeCentroids with `left` as the result, in place. */
export function mergeInto({ left: target, leftSize, right, rightSize, limit }: CentroidMerge): void {
  const leftCount = target.terms.length;
  const rightCount = right.terms.length;
  if (rightCount === 0) {
    trimInto(target, { terms: target.terms, weights: target.weights, ids: target.ids, count: leftCount }, limit);
    return;
  }
  if (leftCount === 0) {
    trimInto(target, { terms: right.terms, weights: right.weights, ids: right.ids, count: rightCount }, limit);
    return;
  }
  const total = leftSize + rightSize;
  if (mergedWeights.length < leftCount + rightCount) {
    mergedWeights = new Float64Array((leftCount + rightCount) * 2);
    mergedIds = new Int32Array((leftCount + rightCount) * 2);
  }
  const terms = mergedTerms;
  const weights = mergedWeights;
  const ids = mergedIds;
  const leftTerms = target.terms;
  const leftWeights = target.weights;
  const leftIds = target.ids;
  const rightTerms = right.terms;
  let i = 0;
  let j = 0;
  let count = 0;
  while (i < leftCount && j < rightCount) {
    const l = leftTerms[i] as string;
    const r = rightTerms[j] as string;
    if (l < r) {
      terms[count] = l;
      ids[count] = leftIds[i] as number;
      weights[count] = ((leftWeights[i] as number) * leftSize) / total;
      i += 1;
    } else if (r < l) {
      terms[count] = r;
      ids[count] = right.ids[j] as number;
      weights[count] = ((right.weights[j] as number) * rightSize) / total;
      j += 1;
    } else {
      terms[count] = l;
      ids[count] = leftIds[i] as number;
      weights[count] = ((leftWeights[i] as number) * leftSize) / total + ((right.weights[j] as number) * rightSize) / total;
      i += 1;
      j += 1;
    }
    count += 1;
  }
  for (; i < leftCount; i += 1, count += 1) {
    terms[count] = leftTerms[i] as string;
    ids[count] = leftIds[i] as number;
    weights[count] = ((leftWeights[i] as number) * leftSize) / total;
  }
  for (; j < rightCount; j += 1, count += 1) {
    terms[count] = rightTerms[j] as string;
    ids[count] = right.ids[j] as number;
    weights[count] = ((right.weights[j] as number) * rightSize) / total;
  }
  trimInto(target, { terms, weights, ids, count }, limit);
  // The merge buffer keeps no strings alive past a large merge.
  if (mergedTerms.length > 4096) mergedTerms = [];
}

/** Where a merge writes before trimming (reused). */
let mergedTerms: string[] = [];
let mergedWeights = new Float64Array(1024);
let mergedIds = new Int32Array(1024);

/** The first `count` entries of parallel term-ordered arrays (a centroid's, or a merge buffer's). */
interface EntryRun {
  terms: readonly string[];
  weights: Float64Array;
  ids: Int32Array;
  count: number;
}

/**
 * Writes the entries (which may be `target`'s own arrays) into `target` with only the `limit`
 * heaviest terms kept (ties: the lower term stays), in term order. The lightest are found by
 * selection, not by sorting every term.
 */
function trimInto(target: Centroid, entries: EntryRun, limit: number): void {
  const { terms, count } = entries;
  let { weights, ids } = entries;
  const size = Math.min(count, limit);
  if (target.weights.length < size) {
    // Sized for the cap: a cluster's centroid is then merged in the same arrays from here on.
    const capacity = Math.max(size, Math.min(limit, 256));
    const grownWeights = new Float64Array(capacity);
    const grownIds = new Int32Array(capacity);
    if (weights === target.weights) {
      grownWeights.set(weights.subarray(0, count));
      grownIds.set(ids.subarray(0, count));
      weights = grownWeights;
      ids = grownIds;
    }
    target.weights = grownWeights;
    target.ids = grownIds;
  }
  const outTerms = target.terms;
  const outWeights = target.weights;
  const outIds = target.ids;
  if (count <= limit) {
    if (weights !== outWeights) {
      for (let index = 0; index < count; index += 1) {
        outTerms[index] = terms[index] as string;
        outWeights[index] = weights[index] as number;
        outIds[index] = ids[index] as number;
      }
    }
    outTerms.length = count;
    target.norm = normOf(outWeights, count);
    return;
  }
  const threshold = kthLargest(weights, count, limit);
  let ties = limit;
  for (let index = 0; index < count; index += 1) if ((weights[index] as number) > threshold) ties -= 1;
  // Writing never overtakes reading (kept ≤ index), so `target`'s own arrays may be both.
  let kept = 0;
  for (let index = 0; index < count; index += 1) {
    const weight = weights[index] as number;
    if (weight > threshold || (weight === threshold && ties-- > 0)) {
      outTerms[kept] = terms[index] as string;
      outWeights[kept] = weight;
      outIds[kept] = ids[index] as number;
      kept += 1;
    }
  }
  outTerms.length = kept;
  target.norm = normOf(outWeights, kept);
}

let selection = new Float64Array(512);

/** The k-th largest of the first `count` of `values` (1-based), by quickselect on a reused copy. */
function kthLargest(values: Float64Array, count: number, k: number): number {
  if (selection.length < count) selection = new Float64Array(count * 2);
  const work = selection;
  work.set(values.subarray(0, count));
  let low = 0;
  let high = count - 1;
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
  const count = centroid.terms.length;
  for (let index = 0; index < count; index += 1) {
    const weight = scratch[ids[index] as number] as number;
    if (weight !== 0) dot += weight * (weights[index] as number);
  }
  return dot / (queryNorm * centroid.norm);
}

/** Cosine similarity of two centroids, summed over `right`'s terms in term order. */
export function centroidSimilarity(left: Centroid, right: Centroid, dictionary: TermDictionary): number {
  if (left.norm === 0 || right.norm === 0) return 0;
  const scratch = dictionary.scratch();
  const count = left.terms.length;
  for (let index = 0; index < count; index += 1) scratch[left.ids[index] as number] = left.weights[index] as number;
  const similarity = scratchSimilarity(scratch, left.norm, right);
  for (let index = 0; index < count; index += 1) scratch[left.ids[index] as number] = 0;
  return similarity;
}
