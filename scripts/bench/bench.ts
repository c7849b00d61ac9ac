// Entry point of `pnpm bench`: builds a history of each size, times the ledger's operations on them (interleaved across sizes), and prints the results table.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { benchmarkAppendThroughput } from './append-throughput-benchmark.ts';
import { benchmarkPgAppendThroughput } from './append-throughput-pg-benchmark.ts';
import { parseBenchArguments, USAGE, UsageError } from './args.ts';
import { type BenchStorage, postgresStorage, sqliteStorage } from './bench-storage.ts';
import { buildContextOperations, CONTEXT_AT_HEAD } from './build-context-benchmark.ts';
import { BENCH_HISTORY_SEED, type BuiltHistory, buildHistory } from './build-history.ts';
import { benchmarkEmbeddings } from './embeddings-benchmark.ts';
import { benchmarkEventsIngest } from './events-ingest-benchmark.ts';
import { FORK_FROM_HEAD, forkOperations } from './fork-benchmark.ts';
import { benchmarkFullHistory } from './full-history-benchmark.ts';
import { graduationOperation } from './graduation-benchmark.ts';
import { HISTORY_BUILDING_SIZE_INDEPENDENT, historyBuildingResults } from './history-building-benchmark.ts';
import { JSONL_CONTEXT, JSONL_FORK, jsonlOperations, writeJsonlSession } from './jsonl-baseline.ts';
import {
  type InterleavedSamplingOptions,
  latencyResults,
  nowMilliseconds,
  sampleInterleaved,
  type TimedOperation,
} from './measure.ts';
import { reportProgress } from './progress.ts';
import { addSizeBaselines, type BenchResult, describeMachine, formatTable, orderResults, writeJsonReport } from './report.ts';
import { extractSearchArguments, SEARCH_USAGE, searchSizesFor } from './search-args.ts';
import { benchmarkSearch } from './search-benchmark.ts';
import { createTemporaryDirectory, removeTemporaryDirectory } from './temporary-files.ts';

/** 10 rounds of 20 calls: 200 timed calls per operation and size. */
const LATENCY_SAMPLING: InterleavedSamplingOptions = { rounds: 10, iterationsPerRound: 20, warmupIterations: 20 };
const WARMUP_TURNS = 1000;
/** Reading a whole file per call is slow at 100k turns: fewer, still interleaved, samples. */
const JSONL_SAMPLING: InterleavedSamplingOptions = { rounds: 3, iterationsPerRound: 3, warmupIterations: 1 };
/** Cold turns already in the forest when graduation is timed (the issue's 1k and 10k). */
const GRADUATION_SIZES = [1_000, 10_000];

/** The URL without its password, for progress lines. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function operationsOn(history: BuiltHistory): Promise<TimedOperation[]> {
  return [...buildContextOperations(history), ...(await forkOperations(history))];
}

/** Runs every measured code path on a small throwaway history, so the first size is not timed cold. */
async function warmUp(storage: BenchStorage): Promise<void> {
  reportProgress(`warm-up on ${WARMUP_TURNS} turns (not reported)`);
  const path = await storage.create('warm-up');
  const history = await buildHistory({ path, turns: WARMUP_TURNS, seed: BENCH_HISTORY_SEED + 1, quiet: true });
  try {
    await sampleInterleaved(await operationsOn(history), { ...LATENCY_SAMPLING, rounds: 2 });
  } finally {
    await history.ledger.close();
    await storage.remove(path);
  }
}

/**
 * The ledger's figure beside the JSONL file's for the same operation and size (p50 and p95):
 * `baseline` is the file's, `ratio` the ledger's share of it (below 1: the ledger is faster).
 */
function againstJsonl(ledgerResults: readonly BenchResult[], jsonlResults: readonly BenchResult[]): BenchResult[] {
  const pairs: Array<[string, string]> = [
    [CONTEXT_AT_HEAD, JSONL_CONTEXT],
    [FORK_FROM_HEAD, JSONL_FORK],
  ];
  return pairs.flatMap(([ledgerName, jsonlName]) =>
    ['p50', 'p95'].flatMap((percentile) =>
      ledgerResults
        .filter((result) => result.name === `${ledgerName} ${percentile}`)
        .flatMap((result) => {
          const file = jsonlResults.find(
            (candidate) => candidate.name === `${jsonlName} ${percentile}` && candidate.size === result.size,
          );
          if (!file || file.value === 0) return [];
          return [
            {
              name: `${ledgerName} ${percentile}, ledger against JSONL file`,
              size: result.size,
              unit: 'ms',
              value: result.value,
              baseline: file.value,
              ratio: result.value / file.value,
            },
          ];
        }),
    ),
  );
}

async function main(): Promise<void> {
  const search = extractSearchArguments(process.argv.slice(2));
  const options = parseBenchArguments(search.rest);
  if (options.help) {
    process.stdout.write(USAGE + SEARCH_USAGE);
    return;
  }
  const searchSizes = searchSizesFor(search, options.quick);
  const machine = describeMachine();
  const started = nowMilliseconds();
  reportProgress(
    `node ${machine.node}, ${machine.cpus.count} × ${machine.cpus.model}, ${machine.totalMemGiB} GiB; ` +
      `sizes ${search.only ? '(search only)' : options.sizes.join(', ')}${options.quick ? ' (quick)' : ''}; ` +
      `search sizes ${searchSizes.join(', ') || 'none'}; ${options.db ? `PostgreSQL, fresh databases next to ${redacted(options.db)}` : 'SQLite files'}`,
  );
  const results: BenchResult[] = [];
  const sizeIndependentNames = new Set(HISTORY_BUILDING_SIZE_INDEPENDENT);
  const directory = createTemporaryDirectory();
  const storage = options.db ? postgresStorage(options.db) : sqliteStorage(directory);
  // The JSONL baseline's file sits in the scratch directory whatever the engine.
  const jsonlPathOf = (history: BuiltHistory) => join(directory, `history-${history.turns}.jsonl`);
  const histories: BuiltHistory[] = [];
  try {
    if (!search.only) {
      try {
        await runCoreBenchmarks();
      } catch (error) {
        // Minutes of measurements stand before a late failure: print them before failing.
        process.stdout.write(`${formatTable(orderResults(results))}\n`);
        throw error;
      }
    }
    if (searchSizes.length > 0) {
      const searchResults = await benchmarkSearch({ storage, sizes: searchSizes, quick: options.quick });
      results.push(...searchResults.results);
      for (const name of searchResults.baselineNames) sizeIndependentNames.add(name);
    }
  } finally {
    for (const history of histories) await history.ledger.close();
    await storage.close();
    removeTemporaryDirectory(directory);
  }

  async function runCoreBenchmarks(): Promise<void> {
    await warmUp(storage);
    for (const size of options.sizes) {
      reportProgress(`building a history of ${size.toLocaleString('en-US')} turns`);
      const history = await buildHistory({
        path: await storage.create(`history-${size}`),
        turns: size,
        seed: BENCH_HISTORY_SEED,
      });
      histories.push(history);
      await storage.settle(history.path);
      results.push(...historyBuildingResults(history));
    }
    // Every history stays open so the latency rounds can alternate between sizes.
    reportProgress(`buildContext and forkFrom latency, ${LATENCY_SAMPLING.rounds} rounds across sizes`);
    const operations: TimedOperation[] = [];
    for (const history of histories) operations.push(...(await operationsOn(history)));
    const latencies = latencyResults(await sampleInterleaved(operations, LATENCY_SAMPLING));
    for (const result of latencies) sizeIndependentNames.add(result.name);
    results.push(...latencies);

    reportProgress('the same contexts and forks from a JSONL session file (the file-based baseline)');
    const jsonlOperationsBySize: TimedOperation[] = [];
    for (const history of histories) {
      const jsonlPath = jsonlPathOf(history);
      await writeJsonlSession(history, jsonlPath);
      jsonlOperationsBySize.push(...jsonlOperations(history, jsonlPath));
    }
    const jsonlLatencies = latencyResults(await sampleInterleaved(jsonlOperationsBySize, JSONL_SAMPLING));
    results.push(...jsonlLatencies, ...againstJsonl(latencies, jsonlLatencies));

    reportProgress('getFullHistory over each whole history');
    for (const history of histories) {
      const streamed = await benchmarkFullHistory(history);
      for (const result of streamed) sizeIndependentNames.add(result.name);
      results.push(...streamed);
    }
    for (const history of histories.splice(0)) {
      await history.ledger.close();
      await storage.remove(history.path);
      rmSync(jsonlPathOf(history), { force: true });
    }
    reportProgress(`union-find graduation latency at ${GRADUATION_SIZES.join(' and ')} cold turns`);
    const graduations = latencyResults(
      await sampleInterleaved(
        GRADUATION_SIZES.map((size) => graduationOperation(size, BENCH_HISTORY_SEED)),
        options.quick ? { rounds: 5, iterationsPerRound: 20, warmupIterations: 20 } : LATENCY_SAMPLING,
      ),
    );
    for (const result of graduations) sizeIndependentNames.add(result.name);
    results.push(...graduations);
    const appendSizes = {
      rounds: options.quick ? 3 : 6,
      singleTurnsPerRound: options.quick ? 500 : 1000,
      batchesPerRound: options.quick ? 3 : 5,
    };
    if (storage.databases) {
      reportProgress('append throughput, ledger against raw pg, and from 4 concurrent clients');
      results.push(
        ...(await benchmarkPgAppendThroughput({
          databases: storage.databases,
          ...appendSizes,
          concurrentTurnsPerClient: options.quick ? 250 : 500,
        })),
      );
    } else {
      reportProgress('append throughput, ledger against raw better-sqlite3');
      results.push(...(await benchmarkAppendThroughput({ directory, ...appendSizes })));
    }
    reportProgress(
      `events ingest throughput, events ledger against raw ${storage.engine === 'postgres' ? 'pg' : 'better-sqlite3'}`,
    );
    results.push(
      ...(await benchmarkEventsIngest({
        engine: storage.ingestEngine(),
        rounds: options.quick ? 3 : 5,
        eventsPerMeasurement: options.quick ? 5_000 : 20_000,
      })),
    );
    results.push(...(await benchmarkEmbeddings({ storage, quick: options.quick })));
  }
  addSizeBaselines(results, sizeIndependentNames);
  const ordered = orderResults(results);
  process.stdout.write(`${formatTable(ordered)}\n`);
  if (options.jsonPath) {
    writeJsonReport(options.jsonPath, machine, ordered, storage.engine);
    reportProgress(`wrote ${options.jsonPath}`);
  }
  reportProgress(`done in ${((nowMilliseconds() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}${SEARCH_USAGE}`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
