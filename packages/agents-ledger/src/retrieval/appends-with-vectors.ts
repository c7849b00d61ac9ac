// The ledger's append operations, with vectors at append when asked for (embedOnAppend): each
// append's turns are handed to the background embedding (append-embeddings.ts) once written.

import { InvalidInputError, type NormalTurn } from '@agent-ledger/core';
import { type AppendTurnInput, appendTurns } from '../append-turn.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { appendEmbeddings, type EmbeddingFailure } from './append-embeddings.ts';

export interface AppendOperations {
  appendTurn(sessionId: string, input: AppendTurnInput): Promise<NormalTurn>;
  appendTurns(sessionId: string, inputs: readonly AppendTurnInput[]): Promise<NormalTurn[]>;
  flushEmbeddings(): Promise<void>;
}

export interface VectorsAtAppendOptions {
  embedOnAppend?: boolean;
  onEmbeddingFailure?: (failure: EmbeddingFailure) => void;
}

/**
 * The append operations, and `settled`: the embeddings still under way, which close waits for, and
 * a context with retrieval too (it would otherwise embed the same new turns a second time).
 */
export function appendOperations(
  ledger: LedgerContext,
  options: VectorsAtAppendOptions,
): { operations: AppendOperations; settled: () => Promise<void> } {
  const embeddings = options.embedOnAppend ? appendEmbeddingsOf(ledger, options) : undefined;
  const appended = (turns: NormalTurn[]) => {
    embeddings?.afterAppend(turns);
    return turns;
  };
  const settled = async () => embeddings?.settled();
  return {
    operations: {
      appendTurn: async (sessionId, input) => appended(await appendTurns(ledger, sessionId, [input]))[0] as NormalTurn,
      appendTurns: async (sessionId, inputs) => appended(await appendTurns(ledger, sessionId, inputs)),
      flushEmbeddings: settled,
    },
    settled,
  };
}

function appendEmbeddingsOf(ledger: LedgerContext, options: VectorsAtAppendOptions) {
  if (!ledger.embedder) {
    throw new InvalidInputError('embedOnAppend needs an Embedder: pass createAgentsLedger({ embedder }) too.', 'embedOnAppend');
  }
  return appendEmbeddings({ store: ledger.store, embedder: ledger.embedder, onFailure: options.onEmbeddingFailure });
}
