// The asynchronous half of recall with an Embedder: embeds the line's turns that have no vector yet
// (stored, so each turn is embedded once per model) and the incoming message, before the context is
// built. Without an embedder, or when the embedder fails, recall is bm25 alone: a
// context is never refused because an embedding service is down.

import { type Embedder, type InvalidInputError, LedgerError } from '@agent-ledger/core';
import type { LedgerContext } from '../ledger-context.ts';
import { checkVectors, embedLine } from '../retrieval/turn-vectors.ts';
import { chainSegments, requireTurnRow } from '../store/chain.ts';

export interface SemanticQuery {
  model: string;
  queryVector: number[];
}

export async function semanticQuery(
  ledger: LedgerContext,
  embedder: Embedder | undefined,
  turnId: string,
  query: string | undefined,
): Promise<SemanticQuery | undefined> {
  if (!embedder || !query?.trim()) return undefined;
  const segments = await chainSegments(ledger.store, await requireTurnRow(ledger.store, turnId));
  let vectors: unknown;
  try {
    await embedLine(ledger, embedder, segments);
    vectors = await embedder.embed([query]);
  } catch (error) {
    // The embedder's own failure (network, quota): bm25 carries the context. Anything the ledger
    // itself refused (a malformed vector) is thrown as usual.
    if (isEmbedderShapeError(error)) throw error;
    return undefined;
  }
  checkVectors(vectors, 1, embedder.model);
  return { model: embedder.model, queryVector: vectors[0] as number[] };
}

function isEmbedderShapeError(error: unknown): boolean {
  return LedgerError.isInstance(error) && error.code === 'INVALID_INPUT' && (error as InvalidInputError).field === 'embedder';
}
