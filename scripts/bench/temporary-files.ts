// A scratch directory for the benchmark databases, removed when the run ends.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function createTemporaryDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'nexus-bench-'));
}

export function removeTemporaryDirectory(directory: string): void {
  rmSync(directory, { recursive: true, force: true });
}

/** Deletes a SQLite file with its WAL and shared-memory companions. */
export function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}
