// appendTurn throughput, one turn per transaction and 1000 per transaction, against raw better-sqlite3 inserts (without and with
// the ledger's FTS5 index, the second showing the gap that is the ledger's own) measured in interleaved rounds.

import { join } from 'node:path';
import { type AppendTurnInput, openAgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import { BENCH_SESSION_SETTINGS } from './build-history.ts';
import { median, nowMilliseconds } from './measure.ts';
import { reportProgress } from './progress.ts';
import { openRawTurnStore } from './raw-sqlite-store.ts';
import type { BenchResult } from './report.ts';
import { createConversationGenerator } from './synthetic-conversation.ts';

export const APPEND_ONE_PER_TRANSACTION = 'appendTurn, 1 turn per transaction';
export const APPEND_BATCHED = 'appendTurns, 1000 turns per transaction';

const BATCH_TURNS = 1000;

export interface AppendThroughputOptions {
  directory: string;
  /** Measured rounds; one more runs first as warm-up. */
  rounds: number;
  /** Turns appended one by one per round and per store. */
  singleTurnsPerRound: number;
  /** Batches of BATCH_TURNS per round and per store. */
  batchesPerRound: number;
}

/** Calls `operation` and returns its rate in turns per second. */
async function turnsPerSecond(turns: number, operation: () => Promise<void> | void): Promise<number> {
  const start = nowMilliseconds();
  await operation();
  return (turns / (nowMilliseconds() - start)) * 1000;
}

export async function benchmarkAppendThroughput(options: AppendThroughputOptions): Promise<BenchResult[]> {
  const inputs: AppendTurnInput[] = createConversationGenerator(7).nextTurns(BATCH_TURNS);
  const batch = (round: number, index: number) => {
    // Rotate the pool so consecutive batches do not repeat the same order of turns.
    const offset = (round * 7 + index * 131) % inputs.length;
    return [...inputs.slice(offset), ...inputs.slice(0, offset)];
  };
  // A fresh file for each of the six stores.
  const file = (name: string) => join(options.directory, `append-${name}.sqlite`);
  const ledgerForSingles = openAgentsLedger(file('ledger-single'));
  const ledgerForBatches = openAgentsLedger(file('ledger-batched'));
  const raw = { single: openRawTurnStore(file('raw-single')), batched: openRawTurnStore(file('raw-batched')) };
  const rawFts = {
    single: openRawTurnStore(file('raw-fts-single'), { fullText: true }),
    batched: openRawTurnStore(file('raw-fts-batched'), { fullText: true }),
  };
  try {
    const singleSession = await ledgerForSingles.createSession({ settings: BENCH_SESSION_SETTINGS });
    const batchSession = await ledgerForBatches.createSession({ settings: BENCH_SESSION_SETTINGS });
    const singleTurns = options.singleTurnsPerRound;
    const batchedTurns = options.batchesPerRound * BATCH_TURNS;
    const contenders = (round: number) => ({
      ledgerSingle: () =>
        turnsPerSecond(singleTurns, async () => {
          for (let index = 0; index < singleTurns; index += 1) {
            await ledgerForSingles.appendTurn(singleSession.id, inputs[index % inputs.length] as AppendTurnInput);
          }
        }),
      rawSingle: () =>
        turnsPerSecond(singleTurns, () => {
          for (let index = 0; index < singleTurns; index += 1)
            raw.single.appendOne(inputs[index % inputs.length] as AppendTurnInput);
        }),
      rawFtsSingle: () =>
        turnsPerSecond(singleTurns, () => {
          for (let index = 0; index < singleTurns; index += 1)
            rawFts.single.appendOne(inputs[index % inputs.length] as AppendTurnInput);
        }),
      ledgerBatched: () =>
        turnsPerSecond(batchedTurns, async () => {
          for (let index = 0; index < options.batchesPerRound; index += 1) {
            await ledgerForBatches.appendTurns(batchSession.id, batch(round, index));
          }
        }),
      rawBatched: () =>
        turnsPerSecond(batchedTurns, () => {
          for (let index = 0; index < options.batchesPerRound; index += 1) raw.batched.appendMany(batch(round, index));
        }),
      rawFtsBatched: () =>
        turnsPerSecond(batchedTurns, () => {
          for (let index = 0; index < options.batchesPerRound; index += 1) rawFts.batched.appendMany(batch(round, index));
        }),
    });
    type Name = keyof ReturnType<typeof contenders>;
    const rates = new Map<Name, number[]>();
    for (let round = 0; round <= options.rounds; round += 1) {
      const warmup = round === 0;
      const runs = contenders(round);
      const measured = new Map<Name, number>();
      // Rotate which store goes first, so drift in machine load touches all alike.
      for (const group of [
        ['ledgerSingle', 'rawSingle', 'rawFtsSingle'],
        ['ledgerBatched', 'rawBatched', 'rawFtsBatched'],
      ] as Name[][]) {
        const order = group.map((_, index) => group[(index + round) % group.length] as Name);
        for (const name of order) measured.set(name, await runs[name]());
      }
      const rate = (name: Name) => Math.round(measured.get(name) ?? 0);
      reportProgress(
        `  append round ${warmup ? 'warm-up' : `${round}/${options.rounds}`}: one per transaction ledger ${rate('ledgerSingle')} ` +
          `raw ${rate('rawSingle')} raw+FTS5 ${rate('rawFtsSingle')} turns/s; batched ledger ${rate('ledgerBatched')} ` +
          `raw ${rate('rawBatched')} raw+FTS5 ${rate('rawFtsBatched')} turns/s`,
      );
      if (warmup) continue;
      for (const [name, value] of measured) rates.set(name, [...(rates.get(name) ?? []), value]);
    }
    const result = (name: string, ledger: Name, baseline: Name): BenchResult => {
      const value = median(rates.get(ledger) ?? []);
      const base = median(rates.get(baseline) ?? []);
      return { name, unit: 'turns/s', value, baseline: base, ratio: value / base };
    };
    return [
      result(APPEND_ONE_PER_TRANSACTION, 'ledgerSingle', 'rawSingle'),
      result(APPEND_BATCHED, 'ledgerBatched', 'rawBatched'),
      result(`${APPEND_ONE_PER_TRANSACTION}, against raw INSERT + FTS5`, 'ledgerSingle', 'rawFtsSingle'),
      result(`${APPEND_BATCHED}, against raw INSERT + FTS5`, 'ledgerBatched', 'rawFtsBatched'),
    ];
  } finally {
    await ledgerForSingles.close();
    await ledgerForBatches.close();
    for (const store of [raw.single, raw.batched, rawFts.single, rawFts.batched]) store.close();
  }
}
