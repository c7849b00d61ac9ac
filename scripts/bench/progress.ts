// Progress messages go to stderr so stdout carries only the results table.

export function reportProgress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}
