// Vectors at append (createAgentsLedger({ embedder, embedOnAppend: true })): the turns an append
// wrote are embedded right after it, in the background, so an append never waits for the embedding
// service and never fails because of it. Appends that land while an embedding call is in flight
// are gathered and embedded together (EMBED_BATCH texts a call), so a burst of appends costs a few
// calls, not one each. A failure is handed to `onEmbeddingFailure` with the turns it left without a
// vector; those stay for embedMissing (`nexus embed`), which finds every turn lacking one.

import type { Embedder, NormalTurn } from '@agent-ledger/core';
import type { LineSegment, SearchStore } from '@agent-ledger/store';
import { embedRows } from './turn-vectors.ts';

/** What embedding appended turns could not do: the error, and the turns left without a vector. */
export interface EmbeddingFailure {
  error: unknown;
  turnIds: string[];
}

/** Appends (one line segment each) whose turns are read and embedded together at most. */
const SEGMENTS_PER_READ = 200;

export interface AppendEmbeddings {
  /** Queues the turns of one append for embedding; returns at once. */
  afterAppend(turns: readonly NormalTurn[]): void;
  /** Resolves once every turn queued so far has its vector stored, or its failure reported. */
  settled(): Promise<void>;
}

export function appendEmbeddings({
  store,
  embedder,
  onFailure,
}: {
  store: SearchStore;
  embedder: Embedder;
  onFailure?: (failure: EmbeddingFailure) => void;
}): AppendEmbeddings {
  const queued: LineSegment[] = [];
  let running: Promise<void> | null = null;

  const drain = async (): Promise<void> => {
    while (queued.length > 0) {
      // The appends queued by now, in one read of their texts and as few embedder calls as fit (a
      // bounded number of segments per read, so the statement's parameters stay few).
      await embedSegments({ store, embedder, onFailure }, queued.splice(0, SEGMENTS_PER_READ));
    }
    // In the same tick as the last check: an append queued after it starts a new drain.
    running = null;
  };

  return {
    afterAppend(turns) {
      const first = turns[0];
      const last = turns[turns.length - 1];
      if (!first || !last) return;
      queued.push({ sessionId: first.sessionId, fromDepth: first.depth, toDepth: last.depth });
      // Started on a later tick, so `running` is set before the drain can clear it.
      running ??= Promise.resolve().then(drain);
    },
    async settled() {
      while (running) await running;
    },
  };
}

async function embedSegments(
  { store, embedder, onFailure }: { store: SearchStore; embedder: Embedder; onFailure?: (failure: EmbeddingFailure) => void },
  segments: LineSegment[],
): Promise<void> {
  let rows: Array<{ turnId: string; text: string | null }> = [];
  let stored = 0;
  try {
    // The turns' search text as stored: what embedMissing embeds, so either path stores the same vector.
    rows = await store.turnsWithoutEmbedding(embedder.model, segments);
    await embedRows(store, embedder, { rows, onStored: (count) => (stored += count) });
  } catch (error) {
    const left = rows.slice(stored).map((row) => row.turnId);
    try {
      onFailure?.({ error, turnIds: left });
    } catch {
      // A throwing reporter must not stop the next appends' embeddings.
    }
  }
}
