// How the evaluation's report reads: markdown tables for stdout (the "all" rows, the cost, then
// ER_frac and ER_all per category when there are several), and the JSON file. Pure: eval.ts
// writes them.

import { ALL_CATEGORIES, type ResultRow } from './aggregate.ts';
import type { EvaluationReport } from './run-evaluation.ts';

/** A markdown table with padded columns; numbers (every column not in `leftAligned`) right-aligned. */
export function formatMarkdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  leftAligned: ReadonlySet<number>,
): string {
  const widths = header.map((title, column) => Math.max(3, title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((cell, column) => (leftAligned.has(column) ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (leftAligned.has(column) ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function formatPercent(value: number | null): string {
  return value === null ? '–' : `${(value * 100).toFixed(1)}%`;
}

export function renderReport(report: EvaluationReport): string {
  const { config, rows, cost } = report;
  const sections: string[] = [];
  const raised = config.windowRaises.length;
  sections.push(
    `${config.data.length} conversation(s), ${config.questions.total} question(s): ${config.questions.er} scored for ER, ` +
      `${config.questions.ap} for AP, ${config.questions.atr} for ATR. Summarizer ${config.summarizer}; tokens ${config.tokenCounter}.` +
      (raised > 0 ? ` ${raised} window(s) raised to the largest message (config.windowRaises).` : '') +
      (config.repeatedMessageIds.length > 0
        ? ` ${config.repeatedMessageIds.length} file(s) repeat message ids; later copies imported as <id>#2 (config.repeatedMessageIds).`
        : '') +
      (config.emptyMessages.length > 0
        ? ` ${config.emptyMessages.reduce((total, item) => total + item.ids.length, 0)} empty message(s) skipped by import (config.emptyMessages).`
        : '') +
      (config.failures.length > 0
        ? ` ${config.failures.length} conversation(s) FAILED and are left out: ${config.failures.map((failure) => `${failure.file} (${failure.error})`).join('; ')}.`
        : ''),
  );
  const all = rows.filter((row) => row.category === ALL_CATEGORIES);
  sections.push(
    `## Recall, all questions\n\n${formatMarkdownTable(
      ['strategy', 'budget', 'mode', 'n', 'AP', 'ATR', 'ER_all', 'ER_frac'],
      all.map((row) => [
        row.strategy,
        String(row.budget),
        row.mode,
        String(row.n),
        formatPercent(row.ap),
        formatPercent(row.atr),
        formatPercent(row.er_all),
        formatPercent(row.er_frac),
      ]),
      new Set([0, 2]),
    )}`,
  );
  sections.push(
    `## Cost (summed over conversations and budgets)\n\n${formatMarkdownTable(
      ['strategy', 'summarizer calls', 'input tokens', 'output tokens', 'compactions', 'seconds'],
      cost.map((row) => [
        row.strategy,
        row.calls.toLocaleString('en-US'),
        row.input_tokens.toLocaleString('en-US'),
        row.output_tokens.toLocaleString('en-US'),
        row.compactions.toLocaleString('en-US'),
        row.seconds.toFixed(1),
      ]),
      new Set([0]),
    )}`,
  );
  const categories = [...new Set(rows.map((row) => row.category))].filter((category) => category !== ALL_CATEGORIES);
  if (categories.length > 1) {
    // A category without evidence (unanswerable questions) has no ER to show.
    const scored = categories.filter((category) => rows.some((row) => row.category === category && row.n > 0));
    for (const mode of config.modes) sections.push(categoryTable(rows, scored, mode, 'er_frac'));
    for (const mode of config.modes) sections.push(categoryTable(rows, scored, mode, 'er_all'));
    sections.push('AP and ATR per category, and categories without evidence, are in the JSON report (--json).');
  }
  return `${sections.join('\n\n')}\n`;
}

/** One metric per category: one row per category and strategy, one column per budget. */
function categoryTable(
  rows: readonly ResultRow[],
  categories: readonly string[],
  mode: string,
  metric: 'er_frac' | 'er_all',
): string {
  const mine = rows.filter((row) => row.mode === mode);
  const strategies = [...new Set(mine.map((row) => row.strategy))];
  const budgets = [...new Set(mine.map((row) => row.budget))];
  const byKey = new Map(mine.map((row) => [JSON.stringify([row.category, row.strategy, row.budget]), row]));
  const lines = categories.flatMap((category) =>
    strategies.map((strategy) => {
      const cells = budgets.map((budget) => byKey.get(JSON.stringify([category, strategy, budget])));
      return [category, String(cells[0]?.n ?? 0), strategy, ...cells.map((row) => formatPercent(row?.[metric] ?? null))];
    }),
  );
  return `## ${metric === 'er_frac' ? 'ER_frac' : 'ER_all'} by category, ${mode}\n\n${formatMarkdownTable(
    ['category', 'n', 'strategy', ...budgets.map((budget) => `B=${budget}`)],
    lines,
    new Set([0, 2]),
  )}`;
}

/** The JSON report, as written by --json: stable key order, so equal runs give equal files (but for seconds). */
export function reportJson(report: EvaluationReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
