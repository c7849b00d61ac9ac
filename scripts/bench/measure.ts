// Timing helpers: a monotonic clock in milliseconds, percentiles, and latency sampling interleaved across operations after a warm-up.

import type { BenchResult } from './report.ts';

export function nowMilliseconds(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The p-th percentile (0–100) of `values`, interpolating linearly between the nearest ranks. */
export function percentile(values: readonly number[], percent: number): number {
  if (values.length === 0) throw new Error('percentile() of an empty list');
  const sorted = [...values].sort((left, right) => left - right);
  const position = (Math.min(100, Math.max(0, percent)) / 100) * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const lowerValue = sorted[lower] ?? 0;
  const upperValue = sorted[upper] ?? lowerValue;
  return lowerValue + (upperValue - lowerValue) * (position - lower);
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface LatencySummary {
  p50: number;
  p95: number;
  samples: number;
}

export function summarizeLatencies(milliseconds: readonly number[]): LatencySummary {
  return { p50: percentile(milliseconds, 50), p95: percentile(milliseconds, 95), samples: milliseconds.length };
}

/** One operation to time repeatedly, named for the results table. */
export interface TimedOperation {
  name: string;
  size: number;
  run: () => unknown | Promise<unknown>;
}

export interface InterleavedSamplingOptions {
  rounds: number;
  iterationsPerRound: number;
  warmupIterations: number;
}

/**
 * Times every operation in rounds: each round runs each operation `iterationsPerRound` times,
 * starting from a different operation each round, so a change in machine load falls on all of
 * them alike. Returns the latencies of each operation, in milliseconds.
 */
export async function sampleInterleaved(
  operations: readonly TimedOperation[],
  options: InterleavedSamplingOptions,
): Promise<Map<TimedOperation, LatencySummary>> {
  const samples = new Map<TimedOperation, number[]>(operations.map((operation) => [operation, []]));
  for (const operation of operations) {
    for (let iteration = 0; iteration < options.warmupIterations; iteration += 1) await operation.run();
  }
  for (let round = 0; round < options.rounds; round += 1) {
    for (let index = 0; index < operations.length; index += 1) {
      const operation = operations[(index + round) % operations.length] as TimedOperation;
      const milliseconds = samples.get(operation) ?? [];
      for (let iteration = 0; iteration < options.iterationsPerRound; iteration += 1) {
        const start = nowMilliseconds();
        await operation.run();
        milliseconds.push(nowMilliseconds() - start);
      }
    }
  }
  return new Map(operations.map((operation) => [operation, summarizeLatencies(samples.get(operation) ?? [])]));
}

/** The p50 and p95 of each operation as results, named `<operation> p50` and `<operation> p95`. */
export function latencyResults(summaries: Map<TimedOperation, LatencySummary>): BenchResult[] {
  return [...summaries].flatMap(([operation, summary]) => [
    { name: `${operation.name} p50`, size: operation.size, unit: 'ms', value: summary.p50 },
    { name: `${operation.name} p95`, size: operation.size, unit: 'ms', value: summary.p95 },
  ]);
}
