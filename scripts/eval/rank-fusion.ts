// Reciprocal rank fusion of ranked lists, as the hybrid's recall fuses bm25 with vector similarity
// (agents-ledger's turn-vectors.ts, not public): each id scores Σ 1 / (k + rank) over the lists it
// is in, rank from 1, k = 60. Kept in step by hand; the `fused` ranking measures what recall would
// rank before it adds neighbours. Pure.

/** The ids of all lists, best fused score first; ties keep the order they were first met in. */
export function fuseRankings(lists: ReadonlyArray<readonly string[]>, k = 60): string[] {
  const fused = new Map<string, number>();
  for (const list of lists) {
    for (const [index, id] of list.entries()) fused.set(id, (fused.get(id) ?? 0) + 1 / (k + index + 1));
  }
  return [...fused].sort((left, right) => right[1] - left[1]).map(([id]) => id);
}
