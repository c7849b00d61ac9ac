// `pnpm bench:engines` keeps working: run as a process against the test run's PostgreSQL server on
// a tiny history, it prints each context's p50 and p95 on both engines and PostgreSQL's against
// SQLite's (figures are not judged: only that they were measured); without --db it says what it
// needs and exits 2.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

const server = inject('postgresUrl');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = (args: string[]) =>
  spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/engines.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });

describe('pnpm bench:engines', () => {
  it('refuses to run without a PostgreSQL server, saying what it needs', () => {
    const result = run(['--sizes', '50']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--db postgres://');
    expect(result.stderr).toContain('Usage: pnpm bench:engines');
  });

  it.skipIf(!server)('times each context on both engines and sets PostgreSQL against SQLite', () => {
    const result = run(['--sizes', '60', '--quick', '--db', server as string]);
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.status).toBe(0);
    for (const context of ['buildContext at head', 'buildContext at head, budget 4000', 'hybrid context at head, budget 4000']) {
      for (const percentile of ['p50', 'p95']) {
        for (const engine of ['SQLite', 'PostgreSQL']) {
          expect(result.stdout).toMatch(new RegExp(`${literal(`${context} ${percentile}, ${engine}`)} +60 +ms +\\d`));
        }
        const against = new RegExp(
          `${literal(`${context} ${percentile}, PostgreSQL against SQLite`)} +60 +ms +([\\d.]+) +([\\d.]+) +([\\d.]+)x`,
        );
        const [, value, baseline, ratio] = result.stdout.match(against) ?? [];
        expect(Number(ratio)).toBeCloseTo(Number(value) / Number(baseline), 1);
      }
    }
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
