// Results: the machine description, size baselines and ratios, the plain-text table and the JSON file.

import { writeFileSync } from 'node:fs';
import { cpus, platform, totalmem } from 'node:os';
import { formatTextTable } from './text-table.ts';

export interface BenchResult {
  name: string;
  /** History size in turns, for results that depend on it. */
  size?: number;
  unit: string;
  value: number;
  baseline?: number;
  /** value / baseline. */
  ratio?: number;
}

export interface MachineDescription {
  node: string;
  cpus: { model: string; count: number };
  totalMemGiB: number;
  platform: string;
}

export function describeMachine(): MachineDescription {
  const processors = cpus();
  return {
    node: process.version,
    cpus: { model: processors[0]?.model.trim() ?? 'unknown', count: processors.length },
    totalMemGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    platform: `${platform()} ${process.arch}`,
  };
}

/**
 * For each result named in `names`, the baseline is the same result at the smallest size measured
 * in this run, and the ratio says how much it grew with the history.
 */
export function addSizeBaselines(results: BenchResult[], names: ReadonlySet<string>): void {
  const smallest = new Map<string, BenchResult>();
  for (const result of results) {
    if (!names.has(result.name) || result.size === undefined) continue;
    const current = smallest.get(result.name);
    if (!current || (current.size ?? 0) > result.size) smallest.set(result.name, result);
  }
  for (const result of results) {
    const reference = smallest.get(result.name);
    if (!reference || reference.value === 0) continue;
    result.baseline = reference.value;
    result.ratio = result.value / reference.value;
  }
}

/** Results grouped by name (in order of first appearance), then by size. */
export function orderResults(results: readonly BenchResult[]): BenchResult[] {
  const firstSeen = new Map<string, number>();
  for (const [index, result] of results.entries()) if (!firstSeen.has(result.name)) firstSeen.set(result.name, index);
  return [...results].sort(
    (left, right) => (firstSeen.get(left.name) ?? 0) - (firstSeen.get(right.name) ?? 0) || (left.size ?? 0) - (right.size ?? 0),
  );
}

export function formatNumber(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(1);
  if (magnitude >= 10) return value.toFixed(2);
  if (magnitude === 0) return '0';
  return value.toFixed(3);
}

export function formatTable(results: readonly BenchResult[]): string {
  const header = ['name', 'size', 'unit', 'value', 'baseline', 'ratio'];
  const rows = results.map((result) => [
    result.name,
    result.size === undefined ? '' : result.size.toLocaleString('en-US'),
    result.unit,
    formatNumber(result.value),
    result.baseline === undefined ? '' : formatNumber(result.baseline),
    result.ratio === undefined ? '' : formatRatio(result.ratio),
  ]);
  // The name and unit columns read best left-aligned, the numbers right-aligned.
  return formatTextTable(header, rows, new Set([0, 2]));
}

export function writeJsonReport(
  path: string,
  machine: MachineDescription,
  results: readonly BenchResult[],
  engine: 'sqlite' | 'postgres' = 'sqlite',
): void {
  writeFileSync(path, `${JSON.stringify({ machine, engine, results }, null, 2)}\n`);
}

/** Two decimals, or three significant digits below 0.1 (a ratio of 0.003x must not print as 0.00x). */
function formatRatio(ratio: number): string {
  return `${ratio >= 0.1 || ratio === 0 ? ratio.toFixed(2) : ratio.toPrecision(2)}x`;
}
