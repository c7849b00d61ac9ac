// Search by meaning: the stored vectors of the ledger's Embedder model, every session's (or one
// session's line), ranked by cosine similarity to the query's vector. It reads only: a turn with no
// vector yet is not found, and is counted (`unembedded`) so the caller can say to run embedMissing.
// Exact: the store's nearestTurns compares every stored vector in scope and returns the best `limit`.

import { type Embedder, InvalidInputError, isCompaction, type NormalTurn } from '@agent-ledger/core';
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
  const lines = await embeddingLines(store, sessionId);
  // One session: its line. Every session: every stored vector of the model (each turn once).
  const line = sessionId === undefined ? undefined : (lines[0] ?? []);
  const best = await store.nearestTurns({
    model: embedder.model,
    vector: Float32Array.from(vectors[0] as number[]),
    line,
    limit,
  });
  let unembedded = 0;
  for (const sessionLine of lines) {
    if (sessionLine.length > 0) unembedded += (await store.turnsWithoutEmbedding(embedder.model, sessionLine)).length;
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
