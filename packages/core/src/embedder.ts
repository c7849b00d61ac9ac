// What an embedding model is to the ledger: texts in, vectors out. The ledger stores the vectors it
// gets (one per turn and model) and ranks turns by cosine similarity beside bm25; which model, and
// how it is called, is the caller's (docs/context.md#embeddings). Off unless one is given.

export interface Embedder {
  /**
   * Names the model and its settings. Vectors are stored under it, and vectors of two models are
   * never compared: a new name re-embeds.
   */
  readonly model: string;
  /**
   * One vector per text, in order, all of the same length. May throw (a network model can fail):
   * the ledger then recalls by bm25 alone for that context.
   */
  embed(texts: readonly string[]): Promise<number[][]>;
}

/** Cosine similarity of two vectors of one length (0 when either is all zeros). */
export function cosineSimilarity(left: ArrayLike<number>, right: ArrayLike<number>): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const a = left[index] as number;
    const b = right[index] as number;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}
