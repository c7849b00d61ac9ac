// Nearest turns on PostgreSQL: the exact scan reads the scope's vectors 1,000 at a time (keyset on
// turn id), so a scope of 2,400 vectors takes three pages; the answer is the one a cosine computed
// here over every vector gives, over the ledger and on a line of two segments. pgvector is not
// used (see nearest-turns.ts); this is the path PostgreSQL takes.

import { cosineSimilarity } from '@agent-ledger/core';
import type { LedgerStore } from '@agent-ledger/store';
import { sessionWithTurns } from '@agent-ledger/store/contract';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');
const DIMENSIONS = 32;

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
}

describe.skipIf(!server)('nearest turns on PostgreSQL', () => {
  let store: LedgerStore;
  const stored = new Map<string, { sessionId: string; depth: number; vector: Float32Array }>();
  const random = seeded(5);
  const randomVector = () => Float32Array.from({ length: DIMENSIONS }, random);

  beforeAll(async () => {
    store = openPostgresStore(await freshPostgresDatabase(server as string, 'nearest'));
    for (const sessionId of ['a', 'b', 'c']) {
      const turns = await sessionWithTurns(store, sessionId, 800);
      const embeddings = turns.map((turn) => ({ turnId: turn.id, vector: randomVector() }));
      for (const [depth, { turnId, vector }] of embeddings.entries()) stored.set(turnId, { sessionId, depth, vector });
      await store.putTurnEmbeddings('m', embeddings);
    }
  });
  afterAll(async () => store?.close());

  const line = [
    { sessionId: 'a', fromDepth: 100, toDepth: 799 },
    { sessionId: 'b', fromDepth: 0, toDepth: 349 },
  ];
  const onLine = ({ sessionId, depth }: { sessionId: string; depth: number }) =>
    line.some((segment) => segment.sessionId === sessionId && depth >= segment.fromDepth && depth <= segment.toDepth);

  it('answers as an exact cosine over every vector, across pages of the scan', async () => {
    for (let round = 0; round < 4; round += 1) {
      const vector = randomVector();
      const expected = (keep: (turn: { sessionId: string; depth: number }) => boolean) =>
        [...stored]
          .filter(([, turn]) => keep(turn))
          .map(([turnId, turn]) => ({ turnId, similarity: cosineSimilarity(vector, turn.vector) }))
          .sort((left, right) => right.similarity - left.similarity)
          .slice(0, 25);
      for (const [found, want] of [
        [await store.nearestTurns({ model: 'm', vector, limit: 25 }), expected(() => true)],
        [await store.nearestTurns({ model: 'm', vector, line, limit: 25 }), expected(onLine)],
      ] as const) {
        expect(found.map((turn) => turn.turnId)).toEqual(want.map((turn) => turn.turnId));
        for (const [index, turn] of found.entries())
          expect(turn.similarity).toBeCloseTo(want[index]?.similarity ?? Number.NaN, 6);
      }
    }
  });
});
