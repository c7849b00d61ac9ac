// The asynchronous half of recall with an Embedder, before the context is built: the query's vector,
// and on a ledger that can store them, the vectors of the line's turns that have none yet (stored,
// so each turn is embedded once per model). A read-only ledger (`nexus context`, `nexus mcp`)
// cannot keep what it would pay the endpoint for, so it sends the query alone and ranks by the
// vectors already stored; its turns without one are counted, and only bm25 ranks them. Without an
// embedder, or when the embedder fails, recall is bm25 alone: a context is never refused because
// an embedding service is down.

import { type Embedder, type InvalidInputError, LedgerError } from '@agent-ledger/core';
import type { SearchStore } from '@agent-ledger/store';
import type { LedgerContext } from '../ledger-context.ts';
import { checkVectors, embedLine } from '../retrieval/turn-vectors.ts';
import { type ChainSegment, chainSegments, requireTurnRow } from '../store/chain.ts';

export interface SemanticQuery {
  model: string;
  /** The query's vector; absent when no vector of `model` is stored to compare it with (nothing was sent). */
  queryVector?: number[];
  /**
   * The line's normal turns with no vector of `model` on a ledger that cannot store one (opened
   * read-only): they take no part in the ranking by meaning. 0 on a writable ledger, which embeds them first.
   */
  unembeddedTurns: number;
}

export async function semanticQuery(
  ledger: LedgerContext,
  embedder: Embedder | undefined,
  turnId: string,
  query: string | undefined,
): Promise<SemanticQuery | undefined> {
  if (!embedder || !query?.trim()) return undefined;
  const segments = await chainSegments(ledger.store, await requireTurnRow(ledger.store, turnId));
  try {
    const unembeddedTurns = await prepareLineVectors(ledger, embedder, segments);
    if (unembeddedTurns > 0 && !(await storesVectorsOf(ledger.store, embedder.model))) {
      // Nothing stored to compare with: the query's vector could not change the ranking.
      return { model: embedder.model, unembeddedTurns };
    }
    const vectors: unknown = await embedder.embed([query]);
    checkVectors(vectors, 1, embedder.model);
    return { model: embedder.model, queryVector: vectors[0] as number[], unembeddedTurns };
  } catch (error) {
    // The embedder's own failure (network, quota): bm25 carries the context. Anything the ledger
    // itself refused (a malformed vector) is thrown as usual.
    if (isEmbedderShapeError(error)) throw error;
    return undefined;
  }
}

/**
 * Writable: embeds and stores the line's turns without a vector, and 0 are left. Read-only: sends
 * nothing (the vectors could not be kept, so every context would pay for them again) and says how
 * many turns have none.
 */
async function prepareLineVectors(ledger: LedgerContext, embedder: Embedder, segments: readonly ChainSegment[]): Promise<number> {
  if (!ledger.store.readonly) {
    await embedLine(ledger, embedder, segments);
    return 0;
  }
  return (await ledger.store.turnsWithoutEmbedding(embedder.model, segments)).length;
}

/**
 * Whether any turn of the ledger has a vector of `model`: one row read by the (model, turn) key. No
 * turn id is empty, so the first row after (model, '') is the model's first, if it has one.
 */
async function storesVectorsOf(store: SearchStore, model: string): Promise<boolean> {
  const [first] = await store.turnEmbeddingPage({ after: { model, turnId: '' }, limit: 1 });
  return first?.model === model;
}

function isEmbedderShapeError(error: unknown): boolean {
  return LedgerError.isInstance(error) && error.code === 'INVALID_INPUT' && (error as InvalidInputError).field === 'embedder';
}
