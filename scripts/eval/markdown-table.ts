// Markdown tables and the number formats of the evaluation's printed reports (report.ts,
// report-ranking.ts, diff.ts). Pure.

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

export function formatTokens(value: number | null): string {
  return value === null ? '–' : Math.round(value).toLocaleString('en-US');
}
