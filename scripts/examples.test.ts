// The examples run as a user runs them (`pnpm example:…`, here through tsx directly), offline: no
// key in the environment, so each falls back to its SDK's offline model and still shows the ledger
// at work: the early facts come back at the end of a conversation longer than the session's window.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

function runExample(file: string): { status: number | null; stdout: string; stderr: string } {
  const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, NEXUS_DB: _d, ...env } = process.env;
  return spawnSync(tsx, [path.join('examples', file)], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
}

describe.each([['ai-sdk-chat.ts'], ['openai-agents-chat.ts']])('examples/%s, offline', (file) => {
  it('answers the late questions from facts its window no longer holds, and says what the ledger kept', () => {
    const run = runExample(file);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /> Which port is the staging cache on\?\n {2}From what I was given: \[t_\w+\] The staging cache is redis-quokka-7 on port 6390\./,
    );
    expect(run.stdout).toMatch(/pgbouncer 1\.22\.1/);
    expect(run.stdout).toMatch(/the ledger holds 58 turns and [1-9]\d* compactions?/);
  });
});
