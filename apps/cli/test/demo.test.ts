import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { runCli, tempFolder } from './run-cli.ts';

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(() => temp.cleanup());

describe('nexus demo', () => {
  it('replays the bundled conversation with several compactions and a fork from a summarized turn', async () => {
    const run = await runCli(['demo', '--db', temp.dbPath, '--json']);
    expect(run.code).toBe(0);
    const result = run.json() as {
      turns: number;
      compactions: Array<{ tokensBefore: number; tokensAfter: number; summarizedThroughTurnId: string }>;
      context: { tokens: number };
      fork: { sessionId: string; appendedTurnId: string };
    };
    expect(result.turns).toBeGreaterThan(50);
    expect(result.compactions.length).toBeGreaterThanOrEqual(3);
    for (const compaction of result.compactions) expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
    expect(result.context.tokens).toBeLessThanOrEqual(900);
    expect(result.fork.appendedTurnId).toMatch(/^t_/);
  });

  it('runs as the built CLI and prints every section', () => {
    const output = execFileSync(process.execPath, [BUILT_CLI, 'demo', '--db', temp.dbPath], { encoding: 'utf8' });
    for (const heading of ['== 1.', '== 2.', '== 3.', '== 4.', '== 5.', '== 6.']) expect(output).toContain(heading);
    expect(output).toContain('COMPACTION');
    expect(output).toMatch(/forked at t_\d+/);
  });
});
