// Search latency: p50/p95 of ledger.search(query, { limit: 20 }) in the resolved and the raw view, and of
// eventsLedger.search, per query kind and over the mix, on histories of each search size (built by search-history.ts),
// sampled in rounds that alternate between sizes. Also the build time and the size of the full-text indexes.

import { createAgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import { createEventsLedger } from '../../packages/events-ledger/src/index.ts';
import { openRawSqlite } from '../../packages/store-sqlite/src/testing.ts';
import type { BenchStorage } from './bench-storage.ts';
import { nowMilliseconds, percentile } from './measure.ts';
import { reportProgress } from './progress.ts';
import type { BenchResult } from './report.ts';
import { DeadlineExceededError, type DeadlineGuard, guardWithDeadline } from './search-deadline.ts';
import { buildSearchHistory, SEARCH_BATCH, SEARCH_HISTORY_DESCRIPTION, type SearchHistory } from './search-history.ts';
import { QUERY_KINDS, type QueryKind } from './search-queries.ts';

export const DEFAULT_SEARCH_SIZES = [10_000, 100_000];
export const QUICK_SEARCH_SIZES = [10_000];

const SEARCH_SEED = 20260301;
const SEARCH_LIMIT = 20;
/** A call still running after this long is cut off, counted, and recorded at this value (a lower bound). */
export const SEARCH_DEADLINE_MS = 10_000;
/** A warm-up call slower than this is kept as a sample: its cost is computation, not a cold cache. */
const SLOW_CALL_MS = 1000;

/** In the names of all results, so no one mistakes these histories for the main benchmark's. */
const TAG = `search [bulk ×${SEARCH_BATCH}]`;

type View = 'resolved' | 'raw' | 'events';
const VIEWS: readonly View[] = ['resolved', 'raw', 'events'];
const VIEW_LABELS: Record<View, string> = {
  resolved: 'ledger.search resolved',
  raw: 'ledger.search raw',
  events: 'eventsLedger.search',
};

interface SamplingPlan {
  rounds: number;
  callsPerRound: number;
  /** Once an operation has spent this long in timed calls, it stops being sampled. */
  budgetMilliseconds: number;
}

const QUICK_SAMPLING: SamplingPlan = { rounds: 4, callsPerRound: 5, budgetMilliseconds: 800 };
const FULL_SAMPLING: SamplingPlan = { rounds: 10, callsPerRound: 5, budgetMilliseconds: 3000 };

interface SearchOperation {
  size: number;
  view: View;
  kind: QueryKind;
  queries: string[];
  guard: DeadlineGuard;
  call: (query: string) => Promise<unknown>;
  nextQuery: number;
  samples: number[];
  cut: number;
  /** Full-text store operations called by the timed calls, cut ones included. */
  searchOperations: number;
  spent: number;
  retired: boolean;
}

const latencyName = (view: View, kind: QueryKind | 'all kinds', percent: 50 | 95) =>
  `${TAG} ${VIEW_LABELS[view]}, ${kind} p${percent}`;
/** The store's full-text operations a resolved search calls (the all-words probe, the page and the snippets are one). */
const searchOperationsName = (kind: QueryKind) => `${TAG} ${VIEW_LABELS.resolved}, ${kind}: store search operations per call`;
const cutName = (view: View) => `${TAG} ${VIEW_LABELS[view]}, calls cut at ${SEARCH_DEADLINE_MS / 1000} s`;

function operationsOn(history: SearchHistory): SearchOperation[] {
  const guard = guardWithDeadline(history.store);
  // Ledgers on the same store, now guarded: its operations check the deadline.
  const ledger = createAgentsLedger({ store: guard.store });
  const events = createEventsLedger({ store: guard.store });
  const calls: Record<View, (query: string) => Promise<unknown>> = {
    resolved: (query) => ledger.search(query, { limit: SEARCH_LIMIT }),
    raw: (query) => ledger.search(query, { limit: SEARCH_LIMIT, view: 'raw' }),
    events: (query) => events.search(query, { limit: SEARCH_LIMIT }),
  };
  const queries: Record<QueryKind, string[]> = { ...history.plan.queries, '3 words of one turn': history.phrases };
  return VIEWS.flatMap((view) =>
    QUERY_KINDS.map((kind) => ({
      size: history.size,
      view,
      kind,
      queries: queries[kind],
      guard,
      call: calls[view],
      nextQuery: 0,
      samples: [],
      cut: 0,
      searchOperations: 0,
      spent: 0,
      retired: false,
    })),
  );
}

/** One call of the operation's next query, kept as a sample when asked or when slow; a call cut off retires the operation. */
async function timedCall(operation: SearchOperation, keep: boolean): Promise<void> {
  const query = operation.queries[operation.nextQuery % operation.queries.length] as string;
  operation.nextQuery += 1;
  const start = nowMilliseconds();
  const operationsBefore = operation.guard.searchOperations();
  const countOperations = () => {
    operation.searchOperations += operation.guard.searchOperations() - operationsBefore;
  };
  try {
    await operation.guard.within(SEARCH_DEADLINE_MS, () => operation.call(query));
  } catch (error) {
    if (!(error instanceof DeadlineExceededError)) throw error;
    operation.samples.push(SEARCH_DEADLINE_MS);
    operation.cut += 1;
    countOperations();
    operation.retired = true;
    reportProgress(`  cut off: ${operation.size.toLocaleString('en-US')} turns, ${operation.view}, "${query}"`);
    return;
  }
  const milliseconds = nowMilliseconds() - start;
  if (keep || milliseconds > SLOW_CALL_MS) {
    countOperations();
    operation.samples.push(milliseconds);
    operation.spent += milliseconds;
  }
}

/**
 * A warm-up call per operation, then rounds: each round gives each operation still sampled `callsPerRound` calls,
 * starting from a different operation each round so that changes in machine load fall on all sizes alike.
 */
async function sample(operations: SearchOperation[], plan: SamplingPlan): Promise<void> {
  for (const operation of operations) await timedCall(operation, false);
  for (let round = 0; round < plan.rounds; round += 1) {
    for (let index = 0; index < operations.length; index += 1) {
      const operation = operations[(index + round) % operations.length] as SearchOperation;
      for (let call = 0; call < plan.callsPerRound && !operation.retired; call += 1) {
        await timedCall(operation, true);
        if (operation.spent > plan.budgetMilliseconds) operation.retired = true;
      }
    }
  }
}

/** Percentile of the mix with every kind weighing the same, however many samples each has. */
function weightedPercentile(groups: readonly number[][], percent: number): number {
  const weighted = groups
    .filter((values) => values.length > 0)
    .flatMap((values) => values.map((value) => ({ value, weight: 1 / values.length })))
    .sort((left, right) => left.value - right.value);
  const total = weighted.reduce((sum, entry) => sum + entry.weight, 0);
  let cumulative = 0;
  for (const entry of weighted) {
    cumulative += entry.weight;
    if (cumulative >= (percent / 100) * total - 1e-9) return entry.value;
  }
  return weighted.at(-1)?.value ?? 0;
}

function latencyResults(operations: readonly SearchOperation[]): BenchResult[] {
  const results: BenchResult[] = [];
  const sizes = [...new Set(operations.map((operation) => operation.size))];
  for (const size of sizes) {
    for (const view of VIEWS) {
      const group = operations.filter((operation) => operation.size === size && operation.view === view);
      for (const operation of group) {
        if (view === 'resolved') {
          const value = operation.searchOperations / operation.samples.length;
          results.push({ name: searchOperationsName(operation.kind), size, unit: 'count', value });
        }
        for (const percent of [50, 95] as const) {
          results.push({
            name: latencyName(view, operation.kind, percent),
            size,
            unit: 'ms',
            value: percentile(operation.samples, percent),
          });
        }
      }
      for (const percent of [50, 95] as const) {
        const value = weightedPercentile(
          group.map((operation) => operation.samples),
          percent,
        );
        results.push({ name: latencyName(view, 'all kinds', percent), size, unit: 'ms', value });
      }
      results.push({ name: cutName(view), size, unit: 'calls', value: group.reduce((sum, operation) => sum + operation.cut, 0) });
    }
  }
  return results;
}

const MEBIBYTE = 2 ** 20;

/**
 * Bytes of each table and index, from dbstat when SQLite has it; null otherwise. Storage is the engine's own
 * business: it is measured on the file, through a read-only connection of its own, as another program would.
 */
function tableBytes(history: SearchHistory): { sizes: Map<string, number>; searchTextBytes: number } | null {
  const sqlite = openRawSqlite(history.path, { readonly: true });
  try {
    const rows = sqlite.prepare('SELECT name, pgsize FROM dbstat WHERE aggregate = TRUE').all() as Array<{
      name: string;
      pgsize: number;
    }>;
    const searchTextBytes = sqlite
      .prepare('SELECT sum(length(CAST(search_text AS BLOB))) FROM agent_turns')
      .pluck()
      .get() as number;
    return { sizes: new Map(rows.map((row) => [row.name, row.pgsize])), searchTextBytes };
  } catch {
    return null;
  } finally {
    sqlite.close();
  }
}

function storageResults(history: SearchHistory, engine: BenchStorage['engine']): BenchResult[] {
  const size = history.size;
  const measured = engine === 'sqlite' ? tableBytes(history) : null;
  if (!measured) {
    // No dbstat in this SQLite, or PostgreSQL: the database's growth while each part was written, index and rows together.
    const { empty, afterTurns, afterEvents } = history.fileBytes;
    const how = engine === 'sqlite' ? 'file growth' : 'database growth';
    const why = engine === 'sqlite' ? 'no dbstat' : 'pg_database_size';
    return [
      {
        name: `${TAG} ${how}, turns with their index (${why})`,
        size,
        unit: 'MiB',
        value: (afterTurns - empty) / MEBIBYTE,
      },
      {
        name: `${TAG} ${how}, events with their index (${why})`,
        size,
        unit: 'MiB',
        value: (afterEvents - afterTurns) / MEBIBYTE,
      },
    ];
  }
  const { sizes, searchTextBytes } = measured;
  const sum = (prefix: string) => [...sizes].reduce((total, [name, bytes]) => total + (name.startsWith(prefix) ? bytes : 0), 0);
  // Turns and compaction summaries have an index each (migration 0012): a turn's share is both.
  const turnsIndex = sum('turns_fts') + sum('compactions_fts');
  const turnsTable = sizes.get('agent_turns') ?? 0;
  const eventsIndex = sum('events_fts');
  const eventsTable = sizes.get('events') ?? 0;
  return [
    { name: `${TAG} turns_fts + compactions_fts index size`, size, unit: 'MiB', value: turnsIndex / MEBIBYTE },
    { name: `${TAG} agent_turns table size (without its indexes)`, size, unit: 'MiB', value: turnsTable / MEBIBYTE },
    { name: `${TAG} turns_fts + compactions_fts / agent_turns`, size, unit: '%', value: (turnsIndex / turnsTable) * 100 },
    { name: `${TAG} agent_turns.search_text bytes`, size, unit: 'MiB', value: searchTextBytes / MEBIBYTE },
    { name: `${TAG} turns_fts + compactions_fts bytes per turn`, size, unit: 'B/turn', value: turnsIndex / size },
    { name: `${TAG} events_fts index size`, size, unit: 'MiB', value: eventsIndex / MEBIBYTE },
    { name: `${TAG} events table size (without its indexes)`, size, unit: 'MiB', value: eventsTable / MEBIBYTE },
    { name: `${TAG} events_fts / events`, size, unit: '%', value: (eventsIndex / eventsTable) * 100 },
    { name: `${TAG} events_fts bytes per event`, size, unit: 'B/event', value: eventsIndex / size },
  ];
}

const BUILD_TURNS = `${TAG} build: ${SEARCH_HISTORY_DESCRIPTION}`;
const BUILD_TURN_COST = `${TAG} build: µs per turn`;
const BUILD_COMPACTION = `${TAG} build: of which shouldCompact + compact`;
const BUILD_COMPACTIONS = `${TAG} build: compactions`;
const BUILD_UNSUMMARIZED = `${TAG} build: turns no compaction has summarized (at the head)`;
const BUILD_EVENTS = `${TAG} build: events by appendBatch ×${SEARCH_BATCH}`;
const BUILD_EVENT_COST = `${TAG} build: µs per event`;

function buildResults(history: SearchHistory): BenchResult[] {
  const size = history.size;
  return [
    { name: BUILD_TURNS, size, unit: 's', value: history.turnsMilliseconds / 1000 },
    { name: BUILD_COMPACTION, size, unit: 's', value: history.compactionMilliseconds / 1000 },
    { name: BUILD_COMPACTIONS, size, unit: 'count', value: history.compactions },
    { name: BUILD_UNSUMMARIZED, size, unit: 'count', value: history.unsummarizedTurns },
    { name: BUILD_TURN_COST, size, unit: 'µs/turn', value: (history.turnsMilliseconds * 1000) / size },
    { name: BUILD_EVENTS, size, unit: 's', value: history.eventsMilliseconds / 1000 },
    { name: BUILD_EVENT_COST, size, unit: 'µs/event', value: (history.eventsMilliseconds * 1000) / size },
  ];
}

export interface SearchBenchmarkOptions {
  storage: BenchStorage;
  sizes: readonly number[];
  quick: boolean;
}

export interface SearchBenchmarkResults {
  results: BenchResult[];
  /** Results to compare with the smallest size (latencies and costs per item). */
  baselineNames: string[];
}

export async function benchmarkSearch(options: SearchBenchmarkOptions): Promise<SearchBenchmarkResults> {
  const histories: SearchHistory[] = [];
  const results: BenchResult[] = [];
  try {
    for (const size of options.sizes) {
      reportProgress(`search: building ${size.toLocaleString('en-US')} turns (${SEARCH_HISTORY_DESCRIPTION}) and as many events`);
      const history = await buildSearchHistory({
        path: await options.storage.create(`search-${size}`),
        bytesOf: options.storage.bytes,
        size,
        seed: SEARCH_SEED,
      });
      histories.push(history);
      await options.storage.settle(history.path);
      const measuring = nowMilliseconds();
      results.push(...buildResults(history), ...storageResults(history, options.storage.engine));
      reportProgress(`  index and table sizes measured in ${((nowMilliseconds() - measuring) / 1000).toFixed(1)} s`);
    }
    const plan = options.quick ? QUICK_SAMPLING : FULL_SAMPLING;
    reportProgress(
      `search latency, ${plan.rounds} rounds across sizes, at most ${plan.budgetMilliseconds / 1000} s of calls ` +
        `per size, view and query kind, each call cut at ${SEARCH_DEADLINE_MS / 1000} s`,
    );
    const operations = histories.flatMap(operationsOn);
    await sample(operations, plan);
    for (const operation of operations) {
      reportProgress(
        `  ${operation.size.toLocaleString('en-US')} turns, ${operation.view}, ${operation.kind}: ` +
          `${operation.samples.length} timed calls${operation.cut > 0 ? `, ${operation.cut} cut off` : ''}`,
      );
    }
    results.push(...latencyResults(operations));
  } finally {
    for (const history of histories) {
      await history.ledger.close();
      await options.storage.remove(history.path);
    }
  }
  const baselineNames = new Set<string>([BUILD_TURN_COST, BUILD_EVENT_COST]);
  for (const result of results) if (result.unit === 'ms' || result.unit.startsWith('B/')) baselineNames.add(result.name);
  return { results, baselineNames: [...baselineNames] };
}
