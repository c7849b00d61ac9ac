// Nearest turns at 10,000 and 100,000 stored vectors (512 dimensions, the offline embedder's size,
// seeded random values): SearchStore.nearestTurns with sqlite-vec in SQL against the exact scan in
// JavaScript (the same store opened with NEXUS_SQLITE_VEC=off), over the whole ledger and over one
// session's line of 1,000 turns; and sqlite-vec's vec0 KNN table over the same vectors, unscoped,
// for the record (it cannot filter by a line of session segments, see nearest-turns.ts). On
// PostgreSQL, the exact scan only. Rows go into the stores through the store's own operations.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendRows, sessionRecord, turnRecord } from '../../packages/store/src/contract/index.ts';
import type { LedgerStore, TurnRecord } from '../../packages/store/src/index.ts';
import { openLedgerStore } from '../../packages/store/src/index.ts';
import { openRawSqlite } from '../../packages/store-sqlite/src/testing.ts';
import type { BenchStorage } from './bench-storage.ts';
import { median, nowMilliseconds } from './measure.ts';
import { reportProgress } from './progress.ts';
import type { BenchResult } from './report.ts';
import { createSeededRandom } from './seeded-random.ts';

const DIMENSIONS = 512;
const TURNS_PER_SESSION = 1_000;
const MODEL = 'bench-random@512';
const NEIGHBOURS = 10;
const SEED = 20261126;

export const NEAREST_WHOLE_LEDGER = `nearestTurns k=${NEIGHBOURS}, whole ledger, sqlite-vec; baseline exact scan in JS`;
export const NEAREST_ONE_LINE = `nearestTurns k=${NEIGHBOURS}, one line of ${TURNS_PER_SESSION.toLocaleString('en-US')}, sqlite-vec; baseline exact scan in JS`;
export const NEAREST_VEC0 = `vec0 KNN k=${NEIGHBOURS}, whole table (no line scope); baseline sqlite-vec scalar over the stored blobs`;
export const NEAREST_POSTGRES_WHOLE = `nearestTurns k=${NEIGHBOURS}, whole ledger, exact scan (PostgreSQL)`;
export const NEAREST_POSTGRES_LINE = `nearestTurns k=${NEIGHBOURS}, one line of ${TURNS_PER_SESSION.toLocaleString('en-US')}, exact scan (PostgreSQL)`;

export interface NearestTurnsBenchmarkOptions {
  storage: BenchStorage;
  sizes: readonly number[];
  /** Queries timed per figure (their median is reported). */
  queries: number;
}

export async function benchmarkNearestTurns(options: NearestTurnsBenchmarkOptions): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const size of options.sizes) {
    const location = await options.storage.create(`vectors-${size}`);
    reportProgress(`storing ${size.toLocaleString('en-US')} vectors of ${DIMENSIONS} dimensions`);
    const store = openLedgerStore(location);
    try {
      await fillStore(store, size);
      results.push(
        ...(await (options.storage.engine === 'sqlite' ? measureSqlite : measurePostgres)(store, { location, size, ...options })),
      );
    } finally {
      await store.close();
      await options.storage.remove(location);
    }
  }
  return results;
}

function randomVectors(seed: number) {
  const random = createSeededRandom(seed);
  return () => Float32Array.from({ length: DIMENSIONS }, () => random.next() - 0.5);
}

async function fillStore(store: LedgerStore, size: number): Promise<void> {
  const vector = randomVectors(SEED);
  for (let first = 0; first < size; first += TURNS_PER_SESSION) {
    const sessionId = `s${first / TURNS_PER_SESSION}`;
    await store.insertSession(sessionRecord(sessionId));
    const turns: TurnRecord[] = [];
    for (let depth = 0; depth < Math.min(TURNS_PER_SESSION, size - first); depth += 1) {
      turns.push(turnRecord(`${sessionId}-t${depth}`, sessionId, turns.at(-1) ?? null));
    }
    await appendRows(store, sessionId, null, turns);
    await store.putTurnEmbeddings(
      MODEL,
      turns.map((turn) => ({ turnId: turn.id, vector: vector() })),
    );
  }
}

/** The median milliseconds of `run` over fresh query vectors, after one untimed call. */
async function medianMilliseconds(queries: number, run: (vector: Float32Array) => unknown): Promise<number> {
  const vector = randomVectors(SEED + 1);
  await run(vector());
  const samples: number[] = [];
  for (let index = 0; index < queries; index += 1) {
    const query = vector();
    const started = nowMilliseconds();
    await run(query);
    samples.push(nowMilliseconds() - started);
  }
  return median(samples);
}

const LINE = [{ sessionId: 's0', fromDepth: 0, toDepth: TURNS_PER_SESSION - 1 }];

interface MeasureOptions {
  location: string;
  size: number;
  queries: number;
}

async function measureSqlite(store: LedgerStore, { location, size, queries }: MeasureOptions): Promise<BenchResult[]> {
  const previous = process.env.NEXUS_SQLITE_VEC;
  process.env.NEXUS_SQLITE_VEC = 'off';
  const scanning = openLedgerStore(location);
  if (previous === undefined) delete process.env.NEXUS_SQLITE_VEC;
  else process.env.NEXUS_SQLITE_VEC = previous;
  try {
    const figure = async (line: typeof LINE | undefined) => {
      const sqliteVec = await medianMilliseconds(queries, (vector) =>
        store.nearestTurns({ model: MODEL, vector, line, limit: NEIGHBOURS }),
      );
      const scan = await medianMilliseconds(queries, (vector) =>
        scanning.nearestTurns({ model: MODEL, vector, line, limit: NEIGHBOURS }),
      );
      return { sqliteVec, scan };
    };
    const whole = await figure(undefined);
    const oneLine = await figure(LINE);
    const vec0 = vec0Milliseconds(location, queries);
    const row = (name: string, value: number, baseline: number): BenchResult => ({
      name,
      size,
      unit: 'ms',
      value,
      baseline,
      ratio: value / baseline,
    });
    return [
      row(NEAREST_WHOLE_LEDGER, whole.sqliteVec, whole.scan),
      row(NEAREST_ONE_LINE, oneLine.sqliteVec, oneLine.scan),
      row(NEAREST_VEC0, await vec0, whole.sqliteVec),
    ];
  } finally {
    await scanning.close();
  }
}

async function measurePostgres(store: LedgerStore, { size, queries }: MeasureOptions): Promise<BenchResult[]> {
  const whole = await medianMilliseconds(queries, (vector) => store.nearestTurns({ model: MODEL, vector, limit: NEIGHBOURS }));
  const line = await medianMilliseconds(queries, (vector) =>
    store.nearestTurns({ model: MODEL, vector, line: LINE, limit: NEIGHBOURS }),
  );
  return [
    { name: NEAREST_POSTGRES_WHOLE, size, unit: 'ms', value: whole },
    { name: NEAREST_POSTGRES_LINE, size, unit: 'ms', value: line },
  ];
}

/** sqlite-vec as @agent-ledger/store-sqlite resolves it (its optional dependency). */
function sqliteVecPath(): string {
  const storeSqlite = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../packages/store-sqlite/package.json');
  return (createRequire(storeSqlite)('sqlite-vec') as { getLoadablePath(): string }).getLoadablePath();
}

/**
 * The same vectors copied into a vec0 table (cosine) of an in-memory database with the ledger
 * attached (only read: the ledger file is not changed), and its KNN query timed.
 */
async function vec0Milliseconds(location: string, queries: number): Promise<number> {
  const sqlite = openRawSqlite(':memory:');
  try {
    sqlite.loadExtension(sqliteVecPath());
    sqlite.prepare('ATTACH DATABASE ? AS ledger').run(location);
    sqlite.exec(`CREATE VIRTUAL TABLE bench_vec0 USING vec0(embedding float[${DIMENSIONS}] distance_metric=cosine)`);
    sqlite.exec(
      'INSERT INTO bench_vec0 (rowid, embedding) SELECT t.rowid, e.vector FROM ledger.turn_embeddings e ' +
        'JOIN ledger.agent_turns t ON t.id = e.turn_id',
    );
    const knn = sqlite.prepare(`SELECT rowid, distance FROM bench_vec0 WHERE embedding MATCH ? AND k = ${NEIGHBOURS}`);
    return await medianMilliseconds(queries, (vector) => knn.all(Buffer.from(vector.buffer)));
  } finally {
    sqlite.close();
  }
}
