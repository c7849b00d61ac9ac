// Backfilling vectors: every normal turn (of the ledger, or of one session's line) that has no
// vector for the ledger's Embedder is embedded and stored, a batch per store write, so a run that
// stops (a failure, Ctrl-C) keeps what it stored and the next run starts where it ended. The
// context path embeds lazily, when a context needs a line (semantic-query.ts); this is the same
// work done ahead of time, with progress, for `nexus embed`.

import { type Embedder, InvalidInputError } from '@agent-ledger/core';
import type { StoreOperations } from '@agent-ledger/store';
import type { ChainSegment } from '../store/chain.ts';
import { embeddingLines } from './embedding-lines.ts';
import { EMBED_BATCH, embedRows } from './turn-vectors.ts';

export interface EmbedMissingOptions {
  /** Only this session's line (its own turns and those before its fork point); every session otherwise. */
  sessionId?: string;
  /** Texts per embedder call, each call's vectors stored in one write (64). */
  batchSize?: number;
  /** Called once the work is counted (embedded 0), then after each stored batch. */
  onProgress?: (progress: EmbedProgress) => void;
}

export interface EmbedProgress {
  /** Turns embedded and stored so far by this call. */
  embedded: number;
  /** Turns without a vector when the call counted them (plus any appended since on the lines it reads). */
  total: number;
}

export interface EmbedMissingResult {
  /** The Embedder's model name: what the vectors are stored under. */
  model: string;
  embedded: number;
  /** Sessions whose turns were looked at. */
  sessions: number;
  /** The length of the vectors stored; null when none was. */
  dimensions: number | null;
}

export async function embedMissing(
  store: StoreOperations,
  embedder: Embedder | undefined,
  options: EmbedMissingOptions = {},
): Promise<EmbedMissingResult> {
  if (!embedder) {
    throw new InvalidInputError(
      'embedMissing needs an Embedder: open the ledger with createAgentsLedger({ embedder }).',
      'embedder',
    );
  }
  const lines = await embeddingLines(store, options.sessionId);
  // Counted first, so progress has a total; the texts are read again per line when it is embedded,
  // so at most one line's texts are in memory at once.
  const counted: Array<{ line: ChainSegment[]; missing: number }> = [];
  for (const line of lines) {
    const missing = line.length === 0 ? 0 : (await store.turnsWithoutEmbedding(embedder.model, line)).length;
    if (missing > 0) counted.push({ line, missing });
  }
  const progress: EmbedProgress = { embedded: 0, total: counted.reduce((sum, { missing }) => sum + missing, 0) };
  options.onProgress?.({ ...progress });
  let dimensions: number | null = null;
  const measured: Embedder = {
    model: embedder.model,
    embed: async (texts) => {
      const vectors = await embedder.embed(texts);
      dimensions = vectors[0]?.length ?? dimensions;
      return vectors;
    },
  };
  for (const { line, missing } of counted) {
    const rows = await store.turnsWithoutEmbedding(embedder.model, line);
    progress.total += rows.length - missing;
    await embedRows(store, measured, {
      rows,
      batchSize: options.batchSize ?? EMBED_BATCH,
      onStored: (count) => {
        progress.embedded += count;
        options.onProgress?.({ ...progress });
      },
    });
  }
  return { model: embedder.model, embedded: progress.embedded, sessions: lines.length, dimensions };
}
