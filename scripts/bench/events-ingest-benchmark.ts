// Events ingest throughput: the events ledger's append (one transaction per event), appendBatch of 1000 new events, and
// appendBatch of 1000 re-delivered (already stored) events, each against a raw better-sqlite3 baseline of precomputed rows
// measured in the same interleaved rounds. New events are also set against a second baseline, the raw INSERT plus the FTS5
// insert the ledger's full-text index costs: the index alone takes most of the time, and the gap to that baseline is the
// ledger's own work (validation, canonical JSON, hashing, the re-delivery lookup, the tail).

import { join } from 'node:path';
import { type AppendEventInput, type EventsLedger, openEventsLedger } from '../../packages/events-ledger/src/index.ts';
import { median, nowMilliseconds } from './measure.ts';
import { reportProgress } from './progress.ts';
import { openRawEventStore, type RawEventRow } from './raw-events-store.ts';
import type { BenchResult } from './report.ts';
import { createEventGenerator } from './synthetic-events.ts';

export const EVENTS_BATCH = 1000;

// The baseline is the physical limit, a plain INSERT of rows computed before the clock starts; the names say so.
export const EVENTS_APPEND_ONE_PER_TRANSACTION = 'events append, 1 per transaction; baseline raw INSERT of precomputed rows';
export const EVENTS_APPEND_BATCHED = `events appendBatch, ${EVENTS_BATCH} per transaction; baseline raw INSERT of precomputed rows`;
export const EVENTS_REDELIVERY = `events appendBatch re-delivery, ${EVENTS_BATCH} duplicates; baseline raw INSERT OR IGNORE`;
export const EVENTS_APPEND_ONE_PER_TRANSACTION_FULL_TEXT =
  'events append, 1 per transaction; baseline raw INSERT + FTS5 insert of precomputed rows';
export const EVENTS_APPEND_BATCHED_FULL_TEXT = `events appendBatch, ${EVENTS_BATCH} per transaction; baseline raw INSERT + FTS5 insert of precomputed rows`;

const EVENTS_SEED = 20260214;

/** A raw store of either engine (the PostgreSQL one answers with promises). */
export interface IngestBaseline {
  precompute(inputs: readonly AppendEventInput[]): RawEventRow[];
  insertOne(row: RawEventRow): unknown;
  insertMany(rows: readonly RawEventRow[]): unknown;
  insertOrIgnoreMany(rows: readonly RawEventRow[]): number | Promise<number>;
  count(): number | Promise<number>;
  close(): unknown;
}

/** Where the stores live: SQLite files in a directory (the default), or databases on a PostgreSQL server. */
export interface IngestEngine {
  /** How the baseline names call the full-text insert and the ignoring insert on this engine. */
  fullTextName: string;
  ignoreName: string;
  openLedger(label: string): Promise<EventsLedger>;
  openRaw(label: string, fullText: boolean): Promise<IngestBaseline>;
}

export function sqliteIngestEngine(directory: string): IngestEngine {
  return {
    fullTextName: 'FTS5 insert',
    ignoreName: 'INSERT OR IGNORE',
    openLedger: async (label) => openEventsLedger(join(directory, `events-ledger-${label}.sqlite`)),
    openRaw: async (label, fullText) =>
      openRawEventStore(join(directory, `events-raw-${fullText ? 'fts-' : ''}${label}.sqlite`), { fullText }),
  };
}

export interface EventsIngestOptions {
  engine: IngestEngine;
  /** Measured rounds; one more runs first as warm-up. */
  rounds: number;
  /** Events per measurement and per store: appended one by one, and in batches of EVENTS_BATCH (a multiple of it). */
  eventsPerMeasurement: number;
}

type Rates = { ledger: number[]; raw: number[] };
type RatesWithFullText = Rates & { rawFullText: number[] };

/** Calls `operation` and returns its rate in events per second. */
async function eventsPerSecond(count: number, operation: () => Promise<void> | void): Promise<number> {
  const start = nowMilliseconds();
  await operation();
  return (count / (nowMilliseconds() - start)) * 1000;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

/** Runs the measurements one after the other, starting with a different one each round; returns the rates in the order given. */
async function interleaved<T extends number[]>(
  round: number,
  ...measurements: { [K in keyof T]: () => Promise<number> }
): Promise<T> {
  const rates = new Array<number>(measurements.length);
  for (let step = 0; step < measurements.length; step += 1) {
    const index = (round + step) % measurements.length;
    rates[index] = await (measurements[index] as () => Promise<number>)();
  }
  return rates as T;
}

async function verifiedCount(ledger: EventsLedger, expected: number, label: string): Promise<void> {
  const start = nowMilliseconds();
  const result = await ledger.verify();
  const milliseconds = nowMilliseconds() - start;
  if (!result.ok || result.checked !== expected) {
    throw new Error(
      `events ingest: the ${label} ledger does not verify: ${JSON.stringify(result)} (expected ${expected} events)`,
    );
  }
  reportProgress(
    `  events verify (${label}): ${result.checked} events in ${result.channels} channels ok, ` +
      `${Math.round((result.checked / milliseconds) * 1000)} events/s`,
  );
}

export async function benchmarkEventsIngest(options: EventsIngestOptions): Promise<BenchResult[]> {
  const count = options.eventsPerMeasurement;
  if (count < EVENTS_BATCH || count % EVENTS_BATCH !== 0) {
    throw new Error(`eventsPerMeasurement must be a positive multiple of ${EVENTS_BATCH}, got ${count}`);
  }
  const generator = createEventGenerator(EVENTS_SEED);
  // A fresh store for each of the six; re-delivery runs on the batched stores, against what this round appended.
  const { engine } = options;
  const ledgerForSingles = await engine.openLedger('single');
  const ledgerForBatches = await engine.openLedger('batched');
  const rawForSingles = await engine.openRaw('single', false);
  const rawForBatches = await engine.openRaw('batched', false);
  const fullTextForSingles = await engine.openRaw('single', true);
  const fullTextForBatches = await engine.openRaw('batched', true);
  try {
    const single: RatesWithFullText = { ledger: [], raw: [], rawFullText: [] };
    const batched: RatesWithFullText = { ledger: [], raw: [], rawFullText: [] };
    const redelivery: Rates = { ledger: [], raw: [] };
    for (let round = 0; round <= options.rounds; round += 1) {
      const warmup = round === 0;
      // Untimed: the inputs of this round (the same ones for ledger and raw store), and the raw stores' precomputed rows.
      const singleInputs = generator.nextEvents(count);
      const singleRows = rawForSingles.precompute(singleInputs);
      const singleFullTextRows = fullTextForSingles.precompute(singleInputs);
      const batchInputs = chunks(generator.nextEvents(count), EVENTS_BATCH);
      const batchRows = batchInputs.map((inputs) => rawForBatches.precompute(inputs));
      const batchFullTextRows = batchInputs.map((inputs) => fullTextForBatches.precompute(inputs));
      let redelivered = 0;
      let rawRewritten = 0;

      const [ledgerSingleRate, rawSingleRate, fullTextSingleRate] = await interleaved<[number, number, number]>(
        round,
        () =>
          eventsPerSecond(count, async () => {
            for (const input of singleInputs) await ledgerForSingles.append(input);
          }),
        () =>
          eventsPerSecond(count, async () => {
            for (const row of singleRows) await rawForSingles.insertOne(row);
          }),
        () =>
          eventsPerSecond(count, async () => {
            for (const row of singleFullTextRows) await fullTextForSingles.insertOne(row);
          }),
      );
      const [ledgerBatchedRate, rawBatchedRate, fullTextBatchedRate] = await interleaved<[number, number, number]>(
        round,
        () =>
          eventsPerSecond(count, async () => {
            for (const inputs of batchInputs) await ledgerForBatches.appendBatch(inputs);
          }),
        () =>
          eventsPerSecond(count, async () => {
            for (const rows of batchRows) await rawForBatches.insertMany(rows);
          }),
        () =>
          eventsPerSecond(count, async () => {
            for (const rows of batchFullTextRows) await fullTextForBatches.insertMany(rows);
          }),
      );
      const [ledgerRedeliveryRate, rawRedeliveryRate] = await interleaved<[number, number]>(
        round,
        () =>
          eventsPerSecond(count, async () => {
            for (const inputs of batchInputs) {
              for (const appended of await ledgerForBatches.appendBatch(inputs)) if (appended.duplicate) redelivered += 1;
            }
          }),
        () =>
          eventsPerSecond(count, async () => {
            for (const rows of batchRows) rawRewritten += await rawForBatches.insertOrIgnoreMany(rows);
          }),
      );
      if (redelivered !== count || rawRewritten !== 0) {
        throw new Error(
          `events ingest: re-delivery wrote events (ledger duplicates ${redelivered}/${count}, raw rows ${rawRewritten})`,
        );
      }
      reportProgress(
        `  events round ${warmup ? 'warm-up' : `${round}/${options.rounds}`}: ` +
          `append ledger ${Math.round(ledgerSingleRate)} raw ${Math.round(rawSingleRate)} raw+fts ${Math.round(fullTextSingleRate)}; ` +
          `batch ledger ${Math.round(ledgerBatchedRate)} raw ${Math.round(rawBatchedRate)} raw+fts ${Math.round(fullTextBatchedRate)}; ` +
          `re-delivery ledger ${Math.round(ledgerRedeliveryRate)} raw ${Math.round(rawRedeliveryRate)} events/s`,
      );
      if (warmup) continue;
      single.ledger.push(ledgerSingleRate);
      single.raw.push(rawSingleRate);
      single.rawFullText.push(fullTextSingleRate);
      batched.ledger.push(ledgerBatchedRate);
      batched.raw.push(rawBatchedRate);
      batched.rawFullText.push(fullTextBatchedRate);
      redelivery.ledger.push(ledgerRedeliveryRate);
      redelivery.raw.push(rawRedeliveryRate);
    }
    // Untimed sanity check: what was measured is a valid ledger, every event stored once, every chain intact.
    const stored = (options.rounds + 1) * count;
    await verifiedCount(ledgerForSingles, stored, 'one-by-one');
    await verifiedCount(ledgerForBatches, stored, 'batched');
    const rawCounts = await Promise.all(
      [rawForSingles, rawForBatches, fullTextForSingles, fullTextForBatches].map((store) => store.count()),
    );
    if (rawCounts.some((rawCount) => rawCount !== stored)) {
      throw new Error('events ingest: a raw store does not hold every row once');
    }
    const result = (name: string, ledgerRates: number[], baselineRates: number[]): BenchResult => {
      const value = median(ledgerRates);
      const baseline = median(baselineRates);
      return { name, unit: 'events/s', value, baseline, ratio: value / baseline };
    };
    // The SQLite names as they always were; on another engine, its own words for the same baselines.
    const named = (name: string) =>
      name.replace('FTS5 insert', engine.fullTextName).replace('INSERT OR IGNORE', engine.ignoreName);
    return [
      result(named(EVENTS_APPEND_ONE_PER_TRANSACTION), single.ledger, single.raw),
      result(named(EVENTS_APPEND_ONE_PER_TRANSACTION_FULL_TEXT), single.ledger, single.rawFullText),
      result(named(EVENTS_APPEND_BATCHED), batched.ledger, batched.raw),
      result(named(EVENTS_APPEND_BATCHED_FULL_TEXT), batched.ledger, batched.rawFullText),
      result(named(EVENTS_REDELIVERY), redelivery.ledger, redelivery.raw),
    ];
  } finally {
    await ledgerForSingles.close();
    await ledgerForBatches.close();
    for (const store of [rawForSingles, rawForBatches, fullTextForSingles, fullTextForBatches]) await store.close();
  }
}
