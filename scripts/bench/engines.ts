// `pnpm bench:engines --db postgres://…`: the same history on SQLite and on PostgreSQL at each size,
// the contexts a runtime builds every turn timed on both in the same rounds (interleaved across
// engines and sizes, so a change in the machine's speed falls on both alike), and PostgreSQL's p50
// and p95 set against SQLite's. `pnpm bench` measures one engine per run: two runs minutes apart
// on a shared machine differed by more than the engines did.

import { parseBenchArguments, UsageError } from './args.ts';
import { type BenchStorage, postgresStorage, sqliteStorage } from './bench-storage.ts';
import {
  buildContextOperations,
  CONTEXT_AT_HEAD,
  CONTEXT_AT_HEAD_BUDGETED,
  HYBRID_CONTEXT_AT_HEAD,
} from './build-context-benchmark.ts';
import { BENCH_HISTORY_SEED, type BuiltHistory, buildHistory } from './build-history.ts';
import { type LatencySummary, nowMilliseconds, sampleInterleaved, type TimedOperation } from './measure.ts';
import { reportProgress } from './progress.ts';
import { type BenchResult, describeMachine, formatTable, writeJsonReport } from './report.ts';
import { createTemporaryDirectory, removeTemporaryDirectory } from './temporary-files.ts';

const USAGE = `Usage: pnpm bench:engines --db postgres://… [--sizes 10000,100000] [--quick] [--json FILE]

  Builds the same history (the bench's seed) in a SQLite file and in a fresh PostgreSQL database at each
  size, then times buildContext at the head, with a budget, and the hybrid context (a question, recall on)
  on both engines in the same rounds. Prints each engine's p50 and p95 and PostgreSQL's against SQLite's.

  --db URL       a database on the PostgreSQL server (fresh databases are made next to it and dropped)
  --sizes LIST   history sizes in turns (default 10000,100000; --quick: 1000,10000)
  --quick        smaller sizes and fewer rounds
  --json FILE    also write the results as JSON
  --help         print this text
`;

/** The contexts compared: what a runtime builds every turn (the union-find cold rows stay in `pnpm bench`). */
const COMPARED = new Set([CONTEXT_AT_HEAD, CONTEXT_AT_HEAD_BUDGETED, HYBRID_CONTEXT_AT_HEAD]);
const ENGINES = ['sqlite', 'postgres'] as const;
type Engine = (typeof ENGINES)[number];
const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

interface EngineOperation extends TimedOperation {
  engine: Engine;
  context: string;
}

/** Each engine's p50 and p95 per context and size, then PostgreSQL's against SQLite's. */
function comparison(summaries: Map<TimedOperation, LatencySummary>): BenchResult[] {
  // The two engines' summaries of each context and size, side by side.
  const pairs = new Map<string, { context: string; size: number } & Partial<Record<Engine, LatencySummary>>>();
  for (const [operation, summary] of summaries) {
    const { engine, context, size } = operation as EngineOperation;
    const key = `${context} @ ${size}`;
    const pair = pairs.get(key) ?? { context, size };
    pair[engine] = summary;
    pairs.set(key, pair);
  }
  const results: BenchResult[] = [];
  for (const { context, size, sqlite, postgres } of pairs.values()) {
    if (!sqlite || !postgres) continue;
    for (const percentile of ['p50', 'p95'] as const) {
      for (const [engine, summary] of [
        ['sqlite', sqlite],
        ['postgres', postgres],
      ] as const) {
        results.push({ name: `${context} ${percentile}, ${ENGINE_NAMES[engine]}`, size, unit: 'ms', value: summary[percentile] });
      }
      const value = postgres[percentile];
      const baseline = sqlite[percentile];
      results.push({
        name: `${context} ${percentile}, PostgreSQL against SQLite`,
        size,
        unit: 'ms',
        value,
        baseline,
        ratio: value / baseline,
      });
    }
  }
  return results;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseBenchArguments(argv);
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (!options.db)
    throw new UsageError('pnpm bench:engines compares SQLite with PostgreSQL: give the server with --db postgres://….');
  const sizes = argv.some((argument) => argument.startsWith('--sizes'))
    ? options.sizes
    : options.quick
      ? [1_000, 10_000]
      : [10_000, 100_000];
  const started = nowMilliseconds();
  const directory = createTemporaryDirectory();
  const storages: Record<Engine, BenchStorage> = { sqlite: sqliteStorage(directory), postgres: postgresStorage(options.db) };
  const histories: BuiltHistory[] = [];
  try {
    const operations: EngineOperation[] = [];
    for (const size of sizes) {
      for (const engine of ENGINES) {
        reportProgress(`building a history of ${size.toLocaleString('en-US')} turns on ${ENGINE_NAMES[engine]}`);
        const path = await storages[engine].create(`engines-${size}`);
        const history = await buildHistory({ path, turns: size, seed: BENCH_HISTORY_SEED });
        histories.push(history);
        await storages[engine].settle(path);
        for (const operation of buildContextOperations(history).filter((candidate) => COMPARED.has(candidate.name))) {
          operations.push({ ...operation, name: `${operation.name} [${engine}]`, engine, context: operation.name });
        }
      }
    }
    const rounds = options.quick ? 4 : 10;
    reportProgress(`${operations.length} contexts, ${rounds} rounds of 20 calls each, interleaved across engines and sizes`);
    const results = comparison(await sampleInterleaved(operations, { rounds, iterationsPerRound: 20, warmupIterations: 20 }));
    process.stdout.write(`${formatTable(results)}\n`);
    if (options.jsonPath) writeJsonReport(options.jsonPath, describeMachine(), results, 'postgres');
  } finally {
    for (const history of histories) await history.ledger.close();
    for (const storage of Object.values(storages)) await storage.close();
    removeTemporaryDirectory(directory);
  }
  reportProgress(`done in ${((nowMilliseconds() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
