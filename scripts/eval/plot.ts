// Draws ER against budget, one line per strategy and mode, from one or more `pnpm eval --json`
// reports: an SVG written by hand (no plotting dependency), for docs/benchmarks.md.
// Usage: pnpm exec tsx scripts/eval/plot.ts --out docs/images/eval-er-frac.svg [--metric er_frac] [--title T] REPORT.json...

import { readFileSync, writeFileSync } from 'node:fs';
import { ALL_CATEGORIES, type ResultRow } from './aggregate.ts';

export interface Series {
  label: string;
  points: Array<{ budget: number; value: number }>;
}

export interface PlotOptions {
  title: string;
  metric: string;
  width?: number;
  height?: number;
}

const METRIC_NAMES = { er_frac: 'ER_frac', er_all: 'ER_all', ap: 'AP', atr: 'ATR' } as const;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];

/** One series per strategy and mode of the "all" rows, points in budget order. Pure. */
export function seriesOf(rows: readonly ResultRow[], metric: 'er_frac' | 'er_all' | 'ap' | 'atr', prefix = ''): Series[] {
  const series = new Map<string, Series>();
  for (const row of rows) {
    const value = row[metric];
    if (row.category !== ALL_CATEGORIES || value === null) continue;
    const label = `${prefix}${row.strategy}, ${row.mode}`;
    const line = series.get(label) ?? { label, points: [] };
    line.points.push({ budget: row.budget, value });
    series.set(label, line);
  }
  for (const line of series.values()) line.points.sort((left, right) => left.budget - right.budget);
  return [...series.values()];
}

/** The SVG: budgets on a log scale (they double), the metric from 0 to 100 %. Pure. */
export function renderPlot(series: readonly Series[], options: PlotOptions): string {
  const width = options.width ?? 780;
  const height = options.height ?? 420;
  const margin = { left: 56, right: 260, top: 40, bottom: 48 };
  const budgets = [...new Set(series.flatMap((line) => line.points.map((point) => point.budget)))].sort((a, b) => a - b);
  const low = Math.log2(budgets[0] ?? 1);
  const high = Math.log2(budgets.at(-1) ?? 2);
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const x = (budget: number) =>
    margin.left + (high === low ? plotWidth / 2 : ((Math.log2(budget) - low) / (high - low)) * plotWidth);
  const y = (value: number) => margin.top + (1 - value) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    // A title element names the picture for screen readers (and satisfies the SVG lint).
    `<title>${escapeXml(options.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${margin.left}" y="22" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];
  for (let tick = 0; tick <= 100; tick += 20) {
    const at = y(tick / 100);
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotWidth}" y1="${at}" y2="${at}" stroke="#ddd"/>`,
      `<text x="${margin.left - 8}" y="${at + 4}" text-anchor="end">${tick}%</text>`,
    );
  }
  for (const budget of budgets) {
    parts.push(
      `<line x1="${x(budget)}" x2="${x(budget)}" y1="${margin.top}" y2="${margin.top + plotHeight}" stroke="#eee"/>`,
      `<text x="${x(budget)}" y="${margin.top + plotHeight + 18}" text-anchor="middle">${budget.toLocaleString('en-US')}</text>`,
    );
  }
  parts.push(
    `<text x="${margin.left + plotWidth / 2}" y="${height - 10}" text-anchor="middle">context budget (tokens)</text>`,
    `<text transform="translate(16 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.metric)}</text>`,
  );
  for (const [index, line] of series.entries()) {
    const colour = COLOURS[index % COLOURS.length] as string;
    const dashed = line.label.includes('agnostic') ? ' stroke-dasharray="6 4"' : '';
    const path = line.points.map((point) => `${x(point.budget).toFixed(1)},${y(point.value).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="2"${dashed}/>`);
    for (const point of line.points) {
      parts.push(`<circle cx="${x(point.budget).toFixed(1)}" cy="${y(point.value).toFixed(1)}" r="3" fill="${colour}"/>`);
    }
    const legendY = margin.top + 10 + index * 20;
    parts.push(
      `<line x1="${width - margin.right + 16}" x2="${width - margin.right + 40}" y1="${legendY}" y2="${legendY}" stroke="${colour}" stroke-width="2"${dashed}/>`,
      `<text x="${width - margin.right + 46}" y="${legendY + 4}">${escapeXml(line.label)}</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function main(argv: readonly string[]): void {
  let out = '';
  let metric: 'er_frac' | 'er_all' | 'ap' | 'atr' = 'er_frac';
  let title = 'Evidence retained against context budget';
  const reports: Array<{ path: string; prefix: string }> = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === '--out') out = argv[++index] ?? '';
    else if (argument === '--metric') metric = (argv[++index] ?? 'er_frac') as typeof metric;
    else if (argument === '--title') title = argv[++index] ?? title;
    else {
      // LABEL=FILE prefixes that report's series ("locomo: hybrid, aware").
      const [prefix, path] = argument.includes('=') ? (argument.split('=', 2) as [string, string]) : ['', argument];
      reports.push({ path, prefix: prefix ? `${prefix}: ` : '' });
    }
  }
  if (!out || reports.length === 0) {
    process.stderr.write(
      'Usage: tsx scripts/eval/plot.ts --out FILE.svg [--metric er_frac] [--title T] [LABEL=]REPORT.json...\n',
    );
    process.exitCode = 2;
    return;
  }
  const series = reports.flatMap(({ path, prefix }) => {
    const report = JSON.parse(readFileSync(path, 'utf8')) as { rows: ResultRow[] };
    return seriesOf(report.rows, metric, prefix);
  });
  writeFileSync(out, renderPlot(series, { title, metric: METRIC_NAMES[metric] }));
  process.stderr.write(`plot: ${series.length} series written to ${out}\n`);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) main(process.argv.slice(2));
