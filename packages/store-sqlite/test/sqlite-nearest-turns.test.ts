// Nearest turns on SQLite: sqlite-vec (installed here as the optional dependency) loads into the
// connection and answers in SQL; forced off (NEXUS_SQLITE_VEC=off), the exact scan in JavaScript
// answers the same turns with the same similarities, on a line of two segments and over the ledger.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LedgerStore } from '@agent-ledger/store';
import { sessionWithTurns } from '@agent-ledger/store/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nearestByScan, nearestBySqliteVec } from '../src/nearest-turns.ts';
import { openDatabase } from '../src/open-database.ts';
import { createConnection } from '../src/sqlite-connection.ts';
import { openSqliteStore } from '../src/sqlite-store.ts';
import { vectorMethod } from '../src/vector-extension.ts';

const DIMENSIONS = 64;
const directory = mkdtempSync(path.join(tmpdir(), 'nexus-nearest-'));
const file = path.join(directory, 'ledger.db');
let store: LedgerStore;

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
}
const random = seeded(11);
const randomVector = () => Float32Array.from({ length: DIMENSIONS }, random);

beforeAll(async () => {
  store = openSqliteStore({ path: file });
  for (const sessionId of ['a', 'b', 'c']) {
    const turns = await sessionWithTurns(store, sessionId, 700);
    await store.putTurnEmbeddings(
      'm',
      turns.map((turn) => ({ turnId: turn.id, vector: randomVector() })),
    );
  }
});
afterAll(async () => {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});

const line = [
  { sessionId: 'a', fromDepth: 0, toDepth: 399 },
  { sessionId: 'c', fromDepth: 400, toDepth: 699 },
];

function sameAnswers(
  left: ReadonlyArray<{ turnId: string; similarity: number }>,
  right: ReadonlyArray<{ turnId: string; similarity: number }>,
) {
  expect(left.map((turn) => turn.turnId)).toEqual(right.map((turn) => turn.turnId));
  for (const [index, turn] of left.entries()) expect(turn.similarity).toBeCloseTo(right[index]?.similarity ?? Number.NaN, 5);
}

describe('nearest turns on SQLite', () => {
  it('loads sqlite-vec, and its answers in SQL are the exact scan’s', () => {
    const database = openDatabase({ path: file });
    try {
      const connection = createConnection(database.sqlite, database.db);
      expect(vectorMethod(connection.sqlite)).toBe('sqlite-vec');
      for (let round = 0; round < 8; round += 1) {
        const query = { model: 'm', vector: randomVector(), limit: 20 };
        const onLine = { ...query, line };
        const bySqliteVec = nearestBySqliteVec(connection, onLine);
        expect(bySqliteVec).toHaveLength(20);
        expect(
          bySqliteVec.every((turn) => (turn.sessionId === 'a' ? turn.depth < 400 : turn.sessionId === 'c' && turn.depth >= 400)),
        ).toBe(true);
        sameAnswers(bySqliteVec, nearestByScan(connection, onLine));
        sameAnswers(nearestBySqliteVec(connection, query), nearestByScan(connection, query));
      }
    } finally {
      database.close();
    }
  });

  it('with NEXUS_SQLITE_VEC=off a store scans exactly and answers as the one with sqlite-vec', async () => {
    const queries = Array.from({ length: 5 }, () => randomVector());
    const withExtension = await Promise.all(queries.map((vector) => store.nearestTurns({ model: 'm', vector, line, limit: 10 })));
    process.env.NEXUS_SQLITE_VEC = 'off';
    const scanning = openSqliteStore({ path: file });
    try {
      for (const [index, vector] of queries.entries()) {
        sameAnswers(await scanning.nearestTurns({ model: 'm', vector, line, limit: 10 }), withExtension[index] ?? []);
      }
      const database = openDatabase({ path: file, readonly: true });
      expect(vectorMethod(database.sqlite)).toBe('exact-scan');
      database.close();
    } finally {
      delete process.env.NEXUS_SQLITE_VEC;
      await scanning.close();
    }
  });
});
