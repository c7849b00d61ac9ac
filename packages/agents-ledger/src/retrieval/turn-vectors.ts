// Embedding vectors of turns, kept in the ledger (table turn_embeddings: one float32 vector per turn
// and model), and the turns of a line ranked by cosine similarity to a query vector. A plain table
// read in full per query: exact, and fast enough for the lines a context searches (tens of thousands
// of turns); an approximate index (sqlite-vec, pgvector) is the step for more.

import { cosineSimilarity, type Embedder, InvalidInputError } from '@nexus/core';
import type { LedgerContext } from '../ledger-context.ts';
import type { ChainSegment } from '../store/chain.ts';
import type { LineMatch } from './line-matches.ts';

/** Texts sent to the embedder per call. */
const BATCH = 64;

function lineClause(segments: readonly ChainSegment[]): { sql: string; parameters: unknown[] } {
  if (segments.length === 0) return { sql: '0', parameters: [] };
  return {
    sql: segments.map(() => '(t.session_id = ? AND t.depth BETWEEN ? AND ?)').join(' OR '),
    parameters: segments.flatMap((segment) => [segment.sessionId, segment.fromDepth, segment.toDepth]),
  };
}

/**
 * Embeds the normal turns of the line that have no vector for this model yet, oldest first, and
 * stores them: each batch in one transaction, so an embedder failing midway keeps what it gave.
 * Returns how many turns were embedded.
 */
export async function embedLine(ledger: LedgerContext, embedder: Embedder, segments: readonly ChainSegment[]): Promise<number> {
  const { sqlite } = ledger.database;
  const line = lineClause(segments);
  const missing = sqlite
    .prepare(
      'SELECT t.id AS id, t.search_text AS text FROM agent_turns t ' +
        'LEFT JOIN turn_embeddings e ON e.turn_id = t.id AND e.model = ? ' +
        `WHERE t.turn_type = 'normal' AND e.turn_id IS NULL AND (${line.sql}) ORDER BY t.depth`,
    )
    .all(embedder.model, ...line.parameters) as Array<{ id: string; text: string | null }>;
  const insert = sqlite.prepare(
    'INSERT OR REPLACE INTO turn_embeddings (turn_id, model, dimensions, vector) VALUES (?, ?, ?, ?)',
  );
  for (let start = 0; start < missing.length; start += BATCH) {
    const batch = missing.slice(start, start + BATCH);
    const vectors = await embedder.embed(batch.map((row) => row.text ?? ''));
    checkVectors(vectors, batch.length, embedder.model);
    sqlite.transaction(() => {
      for (const [index, row] of batch.entries()) {
        const vector = Float32Array.from(vectors[index] as number[]);
        insert.run(row.id, embedder.model, vector.length, Buffer.from(vector.buffer));
      }
    })();
  }
  return missing.length;
}

/** The line's turns with a vector of `model`, most similar to `query` first (similarity as score). */
export function rankByVector(
  ledger: LedgerContext,
  segments: readonly ChainSegment[],
  model: string,
  query: readonly number[],
  limit: number,
): LineMatch[] {
  const line = lineClause(segments);
  const rows = ledger.database.sqlite
    .prepare(
      'SELECT t.id AS turnId, t.depth AS depth, e.vector AS vector FROM turn_embeddings e ' +
        `JOIN agent_turns t ON t.id = e.turn_id WHERE e.model = ? AND (${line.sql})`,
    )
    .all(model, ...line.parameters) as Array<{ turnId: string; depth: number; vector: Buffer }>;
  const queryVector = Float32Array.from(query);
  const scored = rows.map((row) => {
    const vector = new Float32Array(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength / 4);
    return { turnId: row.turnId, depth: row.depth, score: cosineSimilarity(queryVector, vector) };
  });
  // Ties go to the later turn, as everywhere in recall.
  scored.sort((left, right) => right.score - left.score || right.depth - left.depth);
  return scored.slice(0, limit);
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
