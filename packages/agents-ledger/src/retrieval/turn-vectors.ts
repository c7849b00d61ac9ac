// Embedding vectors of turns, kept in the ledger through the store (one float32 vector per turn and
// model), and the turns of a line ranked by cosine similarity to a query vector: the store's
// nearestTurns compares them where they are stored and returns the nearest few.

import { type Embedder, InvalidInputError } from '@agent-ledger/core';
import type { SearchStore } from '@agent-ledger/store';
import type { LedgerContext } from '../ledger-context.ts';
import type { ChainSegment } from '../store/chain.ts';
import type { LineMatch } from './line-matches.ts';

/** Texts sent to the embedder per call, each call's vectors stored in one write. */
export const EMBED_BATCH = 64;

/**
 * Embeds the normal turns of the line that have no vector for this model yet, oldest first, and
 * stores them: each batch in one store write, so an embedder failing midway keeps what it gave.
 * Returns how many turns were embedded.
 */
export async function embedLine(ledger: LedgerContext, embedder: Embedder, segments: readonly ChainSegment[]): Promise<number> {
  const missing = await ledger.store.turnsWithoutEmbedding(embedder.model, segments);
  await embedRows(ledger.store, embedder, { rows: missing });
  return missing.length;
}

/**
 * Embeds these turns (their search text) in batches and stores each batch's vectors in one write,
 * calling `onStored` with the count after each; what was stored stays when a later batch fails.
 */
export async function embedRows(
  store: SearchStore,
  embedder: Embedder,
  {
    rows,
    batchSize = EMBED_BATCH,
    onStored,
  }: { rows: ReadonlyArray<{ turnId: string; text: string | null }>; batchSize?: number; onStored?: (count: number) => void },
): Promise<void> {
  for (let start = 0; start < rows.length; start += batchSize) {
    const batch = rows.slice(start, start + batchSize);
    const vectors = await embedder.embed(batch.map((row) => row.text ?? ''));
    checkVectors(vectors, batch.length, embedder.model);
    await store.putTurnEmbeddings(
      embedder.model,
      batch.map((row, index) => ({ turnId: row.turnId, vector: Float32Array.from(vectors[index] as number[]) })),
    );
    onStored?.(batch.length);
  }
}

/**
 * The line's turns with a vector of `model`, most similar to `query` first (similarity as score;
 * ties: the later turn). The store compares them (sqlite-vec in SQL where it loads, an exact scan
 * otherwise) and returns `limit` rows, not every vector of the line.
 */
export async function rankByVector(
  ledger: LedgerContext,
  segments: readonly ChainSegment[],
  { model, query, limit }: { model: string; query: readonly number[]; limit: number },
): Promise<LineMatch[]> {
  if (segments.length === 0 || limit < 1) return [];
  const nearest = await ledger.store.nearestTurns({ model, vector: Float32Array.from(query), line: segments, limit });
  return nearest.map((turn) => ({ turnId: turn.turnId, depth: turn.depth, score: turn.similarity }));
}

export function checkVectors(vectors: unknown, expected: number, model: string): asserts vectors is number[][] {
  const fail = (why: string): never => {
    throw new InvalidInputError(`Embedder ${JSON.stringify(model)} ${why}`, 'embedder');
  };
  if (!Array.isArray(vectors) || vectors.length !== expected) {
    fail(`returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${expected} texts.`);
  }
  const length = (vectors as unknown[][])[0]?.length ?? 0;
  for (const vector of vectors as unknown[]) {
    if (!Array.isArray(vector) || vector.length === 0 || vector.length !== length) {
      fail('returned vectors of different lengths (or an empty one).');
    }
    if ((vector as unknown[]).some((value) => typeof value !== 'number' || !Number.isFinite(value))) {
      fail('returned a vector holding something other than finite numbers.');
    }
  }
}

/**
 * Reciprocal rank fusion of ranked lists: each turn scores Σ 1 / (k + rank) over the lists it is
 * in (rank from 1), then as a share of the best. k = 60, the usual constant: a turn near the top of
 * one list and absent from the other still ranks above one in the middle of both.
 */
export function reciprocalRankFusion(lists: ReadonlyArray<readonly string[]>, k = 60): Map<string, number> {
  const fused = new Map<string, number>();
  for (const list of lists) {
    for (const [index, id] of list.entries()) fused.set(id, (fused.get(id) ?? 0) + 1 / (k + index + 1));
  }
  const best = Math.max(0, ...fused.values());
  const ordered = [...fused].sort((left, right) => right[1] - left[1]);
  return new Map(ordered.map(([id, score]) => [id, best > 0 ? score / best : 0]));
}
