// Formats rows of cells as a plain-text table: padded columns, a rule under the header, numbers right-aligned.

export function formatTextTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  leftAligned: ReadonlySet<number>,
): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (leftAligned.has(column) ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}
