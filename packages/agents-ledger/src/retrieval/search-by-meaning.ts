// Search by meaning: the stored vectors of the ledger's Embedder model, every session's (or one
// session's line), ranked by cosine similarity to the query's vector. It reads only: a turn with no
// vector yet is not found, and is counted (`unembedded`) so the caller can say to run embedMissing.
// Exact: every stored vector of the lines is compared, a line at a time, the best `limit` kept.

import { cosineSimilarity, type Embedder, InvalidInputError, isCompaction, type NormalTurn } from '@agent-ledger/core';
import type { StoreOperations } from '@agent-ledger/store';
import { turnsWithEventLinks } from '../store/event-links.ts';
import { embeddingLines } from './embedding-lines.ts';
import { checkVectors } from './turn-vectors.ts';

export interface MeaningSearchOptions {
  /** Only this session's line (its own turns and those before its fork point); every session otherwise. */
  sessionId?: string;
  /** Hits to return (20, at most 200). */
  limit?: number;
}

export interface MeaningHit {
  /** Only normal turns are embedded (compactions are not). */
  turn: NormalTurn;
  /** Cosine similarity to the query, from -1 to 1: higher is nearer. */
  similarity: number;
}

export interface MeaningSearchResult {
  /** The Embedder's model: the vectors compared. */
  model: string;
  /** Nearest first (ties: the later turn). */
  hits: MeaningHit[];
  /** Normal turns on the searched lines with no vector of this model yet (embedMissing stores them). */
  unembedded: number;
}

export async function searchByMeaning(
  store: StoreOperations,
  embedder: Embedder | undefined,
  { query, sessionId, limit = 20 }: MeaningSearchOptions & { query: string },
): Promise<MeaningSearchResult> {
  if (!embedder) {
    throw new InvalidInputError('Searching by meaning needs an Embedder: open the ledger with createAgentsLedger({ embedder }).');
  }
  if (typeof query !== 'string' || query.trim() === '') throw new InvalidInputError('Give the text to search for.', 'query');
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new InvalidInputError('limit must be from 1 to 200.', 'limit');
  const vectors = await embedder.embed([query]);
  checkVectors(vectors, 1, embedder.model);
  const queryVector = Float32Array.from(vectors[0] as number[]);
  let best: Array<{ turnId: string; depth: number; similarity: number }> = [];
  let unembedded = 0;
  for (const line of await embeddingLines(store, sessionId)) {
    if (line.length === 0) continue;
    for (const row of await store.turnEmbeddings(embedder.model, line)) {
      best.push({ turnId: row.turnId, depth: row.depth, similarity: cosineSimilarity(queryVector, row.vector) });
    }
    // Kept to the best `limit` after each line, so memory holds one line's vectors at a time.
    best = best.sort((left, right) => right.similarity - left.similarity || right.depth - left.depth).slice(0, limit);
    unembedded += (await store.turnsWithoutEmbedding(embedder.model, line)).length;
  }
  const rows = await store.getTurns(best.map((hit) => hit.turnId));
  const turns = await turnsWithEventLinks(
    store,
    best.flatMap((hit) => rows.get(hit.turnId) ?? []),
  );
  const similarityOf = new Map(best.map((hit) => [hit.turnId, hit.similarity]));
  return {
    model: embedder.model,
    hits: turns.flatMap((turn) => (isCompaction(turn) ? [] : [{ turn, similarity: similarityOf.get(turn.id) ?? 0 }])),
    unembedded,
  };
}
