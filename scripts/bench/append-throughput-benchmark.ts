// appendTurn throughput, one turn per transaction and 1000 per transaction, against raw better-sqlite3 inserts measured in interleaved rounds.

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
  // A fresh file for each of the four stores.
  const ledgerForSingles = openAgentsLedger(join(options.directory, 'append-ledger-single.sqlite'));
  const ledgerForBatches = openAgentsLedger(join(options.directory, 'append-ledger-batched.sqlite'));
  const rawForSingles = openRawTurnStore(join(options.directory, 'append-raw-single.sqlite'));
  const rawForBatches = openRawTurnStore(join(options.directory, 'append-raw-batched.sqlite'));
  try {
    const singleSession = await ledgerForSingles.createSession({ settings: BENCH_SESSION_SETTINGS });
    const batchSession = await ledgerForBatches.createSession({ settings: BENCH_SESSION_SETTINGS });
    const rates = {
      ledgerSingle: [] as number[],
      rawSingle: [] as number[],
      ledgerBatched: [] as number[],
      rawBatched: [] as number[],
    };
    const singleTurns = options.singleTurnsPerRound;
    const batchedTurns = options.batchesPerRound * BATCH_TURNS;
    for (let round = 0; round <= options.rounds; round += 1) {
      const warmup = round === 0;
      const ledgerSingle = () =>
        turnsPerSecond(singleTurns, async () => {
          for (let index = 0; index < singleTurns; index += 1) {
            await ledgerForSingles.appendTurn(singleSession.id, inputs[index % inputs.length] as AppendTurnInput);
          }
        });
      const rawSingle = () =>
        turnsPerSecond(singleTurns, () => {
          for (let index = 0; index < singleTurns; index += 1)
            rawForSingles.appendOne(inputs[index % inputs.length] as AppendTurnInput);
        });
      const ledgerBatched = () =>
        turnsPerSecond(batchedTurns, async () => {
          for (let index = 0; index < options.batchesPerRound; index += 1) {
            await ledgerForBatches.appendTurns(batchSession.id, batch(round, index));
          }
        });
      const rawBatched = () =>
        turnsPerSecond(batchedTurns, () => {
          for (let index = 0; index < options.batchesPerRound; index += 1) rawForBatches.appendMany(batch(round, index));
        });
      // Alternate which store goes first, so drift in machine load touches both alike.
      const ledgerFirst = round % 2 === 0;
      const [firstSingle, secondSingle] = ledgerFirst ? [ledgerSingle, rawSingle] : [rawSingle, ledgerSingle];
      const singleRates = [await firstSingle(), await secondSingle()];
      const [firstBatched, secondBatched] = ledgerFirst ? [ledgerBatched, rawBatched] : [rawBatched, ledgerBatched];
      const batchedRates = [await firstBatched(), await secondBatched()];
      const [ledgerSingleRate, rawSingleRate] = ledgerFirst ? singleRates : [...singleRates].reverse();
      const [ledgerBatchedRate, rawBatchedRate] = ledgerFirst ? batchedRates : [...batchedRates].reverse();
      reportProgress(
        `  append round ${warmup ? 'warm-up' : `${round}/${options.rounds}`}: one per transaction ledger ${Math.round(ledgerSingleRate ?? 0)} ` +
          `raw ${Math.round(rawSingleRate ?? 0)} turns/s; batched ledger ${Math.round(ledgerBatchedRate ?? 0)} raw ${Math.round(rawBatchedRate ?? 0)} turns/s`,
      );
      if (warmup) continue;
      rates.ledgerSingle.push(ledgerSingleRate ?? 0);
      rates.rawSingle.push(rawSingleRate ?? 0);
      rates.ledgerBatched.push(ledgerBatchedRate ?? 0);
      rates.rawBatched.push(rawBatchedRate ?? 0);
    }
    const result = (name: string, ledgerRates: number[], rawRates: number[]): BenchResult => {
      const value = median(ledgerRates);
      const baseline = median(rawRates);
      return { name, unit: 'turns/s', value, baseline, ratio: value / baseline };
    };
    return [
      result(APPEND_ONE_PER_TRANSACTION, rates.ledgerSingle, rates.rawSingle),
      result(APPEND_BATCHED, rates.ledgerBatched, rates.rawBatched),
    ];
  } finally {
    ledgerForSingles.close();
    ledgerForBatches.close();
    rawForSingles.close();
    rawForBatches.close();
  }
}
