// The order nearestTurns answers in, on every engine (the store contract checks it): nearest first,
// then the deeper turn, then the greater id; and stored vectors read back from their bytes.

import type { NearestTurn } from './search-store.ts';

/** Sorts in place, nearest first; equal similarities: the deeper turn, then the greater id. */
export function nearestFirst(turns: NearestTurn[]): NearestTurn[] {
  return turns.sort(
    (left, right) =>
      right.similarity - left.similarity ||
      right.depth - left.depth ||
      (left.turnId < right.turnId ? 1 : left.turnId > right.turnId ? -1 : 0),
  );
}

/**
 * A stored float32 vector (a SQLite blob, a PostgreSQL bytea) as a Float32Array: a view when the
 * driver's buffer is 4-byte aligned, else a copy (a Float32Array cannot start mid-word).
 */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return new Float32Array(Uint8Array.from(bytes).buffer);
}
