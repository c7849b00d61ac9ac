// The vector part of the store contract: nearestTurns finds the turns whose stored vectors are most
// similar (cosine) to a query vector, within a line of session segments or over the whole ledger,
// for one model and the query's length only, nearest first with ties to the deeper turn, exactly
// (it agrees with a cosine computed here over hundreds of random vectors).

import { cosineSimilarity } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import type { LedgerStore } from '../index.ts';
import type { LineSegment } from '../search-store.ts';
import { type OpenStore, openPerCase } from './open-per-case.ts';
import { sessionSaying } from './search-rows.ts';
import type { StoreUnderTest } from './store-under-test.ts';

export function embeddingContract(subject: StoreUnderTest): void {
  describe('nearest turns', () => {
    const open = openPerCase(subject);
    scopeCases(open);
    exactnessCases(open);
  });
}

const vector = (...values: number[]) => new Float32Array(values);
const nearest = (store: LedgerStore, query: number[], options: { line?: LineSegment[]; limit?: number; model?: string } = {}) =>
  store.nearestTurns({ model: options.model ?? 'm', vector: vector(...query), line: options.line, limit: options.limit ?? 10 });
const ids = (turns: ReadonlyArray<{ turnId: string }>) => turns.map((turn) => turn.turnId);

function scopeCases(open: OpenStore): void {
  it('nearest first within the line, limit k, one model and the query length only', async () => {
    const store = await open();
    await sessionSaying(store, 'a', ['east', 'north', 'north-east', 'west']);
    await sessionSaying(store, 'b', ['east too', 'south']);
    await store.putTurnEmbeddings('m', [
      { turnId: 'a-t0', vector: vector(1, 0) },
      { turnId: 'a-t1', vector: vector(0, 1) },
      { turnId: 'a-t2', vector: vector(1, 1) },
      { turnId: 'a-t3', vector: vector(-1, 0) },
      { turnId: 'b-t0', vector: vector(2, 0) },
      { turnId: 'b-t1', vector: vector(0, -3) },
    ]);
    await store.putTurnEmbeddings('other', [{ turnId: 'a-t1', vector: vector(1, 0) }]);
    const line = [{ sessionId: 'a', fromDepth: 0, toDepth: 3 }];
    const found = await nearest(store, [1, 0], { line });
    expect(ids(found)).toEqual(['a-t0', 'a-t2', 'a-t1', 'a-t3']);
    expect(found.map((turn) => turn.similarity)).toEqual(
      [1, Math.SQRT1_2, 0, -1].map((expected) => expect.closeTo(expected, 5) as unknown as number),
    );
    expect(found[0]).toMatchObject({ sessionId: 'a', depth: 0 });
    expect(ids(await nearest(store, [1, 0], { line, limit: 2 }))).toEqual(['a-t0', 'a-t2']);
    // Ties (a-t0 and b-t0 point the same way): the deeper turn, then the greater id.
    expect(ids(await nearest(store, [3, 0], { limit: 3 }))).toEqual(['b-t0', 'a-t0', 'a-t2']);
    const twoSegments = [
      { sessionId: 'a', fromDepth: 1, toDepth: 2 },
      { sessionId: 'b', fromDepth: 1, toDepth: 1 },
    ];
    expect(ids(await nearest(store, [0, -1], { line: twoSegments }))).toEqual(['b-t1', 'a-t2', 'a-t1']);
    expect(ids(await nearest(store, [1, 0], { model: 'other' }))).toEqual(['a-t1']);
    expect(await nearest(store, [1, 0, 0])).toEqual([]);
    expect(await nearest(store, [1, 0], { line: [] })).toEqual([]);
    expect(await nearest(store, [1, 0], { model: 'absent' })).toEqual([]);
    for (const limit of [0, -1, 1.5]) {
      await expect(nearest(store, [1, 0], { limit })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'limit' });
    }
  });

  it('a zero vector, stored or asked, has similarity 0; a replaced vector is the one compared', async () => {
    const store = await open();
    await sessionSaying(store, 's', ['one', 'two']);
    await store.putTurnEmbeddings('m', [
      { turnId: 's-t0', vector: vector(0, 0) },
      { turnId: 's-t1', vector: vector(1, 0) },
    ]);
    expect((await nearest(store, [1, 0])).map((turn) => [turn.turnId, turn.similarity])).toEqual([
      ['s-t1', expect.closeTo(1, 5)],
      ['s-t0', 0],
    ]);
    expect((await nearest(store, [0, 0])).map((turn) => turn.similarity)).toEqual([0, 0]);
    await store.putTurnEmbeddings('m', [{ turnId: 's-t1', vector: vector(-1, 0) }]);
    expect((await nearest(store, [1, 0], { limit: 1 }))[0]).toMatchObject({ turnId: 's-t0', similarity: 0 });
  });
}

/** A small seeded generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
}

function exactnessCases(open: OpenStore): void {
  it('agrees with an exact cosine over 600 random vectors, on a line and over the ledger', async () => {
    const store = await open();
    const random = seeded(7);
    const stored = new Map<string, Float32Array>();
    for (const sessionId of ['a', 'b', 'c']) {
      const turns = await sessionSaying(
        store,
        sessionId,
        Array.from({ length: 200 }, (_, index) => `turn ${index}`),
      );
      const embeddings = turns.map((turn) => ({ turnId: turn.id, vector: Float32Array.from({ length: 24 }, random) }));
      for (const { turnId, vector: storedVector } of embeddings) stored.set(turnId, storedVector);
      await store.putTurnEmbeddings('m', embeddings);
    }
    const line = [
      { sessionId: 'a', fromDepth: 0, toDepth: 99 },
      { sessionId: 'b', fromDepth: 150, toDepth: 199 },
    ];
    const onLine = (turnId: string) => {
      const [sessionId, depth] = [turnId[0], Number(turnId.split('-t')[1])];
      return (sessionId === 'a' && depth <= 99) || (sessionId === 'b' && depth >= 150);
    };
    for (let round = 0; round < 5; round += 1) {
      const query = Float32Array.from({ length: 24 }, random);
      const expected = (keep: (turnId: string) => boolean) =>
        [...stored]
          .filter(([turnId]) => keep(turnId))
          .map(([turnId, storedVector]) => ({ turnId, similarity: cosineSimilarity(query, storedVector) }))
          .sort((left, right) => right.similarity - left.similarity)
          .slice(0, 15);
      for (const [found, want] of [
        [await store.nearestTurns({ model: 'm', vector: query, line, limit: 15 }), expected(onLine)],
        [await store.nearestTurns({ model: 'm', vector: query, limit: 15 }), expected(() => true)],
      ] as const) {
        expect(ids(found)).toEqual(ids(want));
        for (const [index, turn] of found.entries())
          expect(turn.similarity).toBeCloseTo(want[index]?.similarity ?? Number.NaN, 5);
      }
    }
  });
}
