import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.ts';
import { runCli, tempFolder } from './run-cli.ts';

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(() => temp.cleanup());

function conversationFile(messages: number): string {
  const file = path.join(temp.folder, 'conversation.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'nexus-eval/v1',
      id: 'cli-test',
      messages: Array.from({ length: messages }, (_, index) => ({
        id: `m${index + 1}`,
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `Message ${index + 1}: service api-${index} listens on port ${8000 + index} and runs version 2.${index}.1 in /srv/app-${index}.`,
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
      })),
      questions: [],
    }),
  );
  return file;
}

describe('nexus import / context / history / fork with --json', () => {
  it('imports a conversation, compacting on threshold, and reports the ids it wrote', async () => {
    const file = conversationFile(60);
    const run = await runCli([
      'import',
      file,
      '--db',
      temp.dbPath,
      '--context-window',
      '600',
      '--reserve',
      '100',
      '--keep',
      '150',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const result = run.json() as {
      sessionId: string;
      headTurnId: string;
      turns: number;
      compactions: number;
      turnIds: Record<string, string>;
    };
    expect(result.turns).toBe(60);
    expect(result.compactions).toBeGreaterThan(1);
    expect(Object.keys(result.turnIds)).toHaveLength(60);

    const history = await runCli(['history', result.headTurnId, '--db', temp.dbPath, '--json']);
    const turns = history.json() as Array<{
      id: string;
      turnType: string;
      summarizedThroughTurnId?: string;
      firstKeptTurnId?: string;
    }>;
    expect(turns).toHaveLength(60 + result.compactions);
    expect(turns.filter((turn) => turn.turnType === 'compaction')).toHaveLength(result.compactions);
    expect(turns.at(-1)?.id).toBe(result.headTurnId);
    const compaction = turns.find((turn) => turn.turnType === 'compaction');
    expect(compaction?.summarizedThroughTurnId).toMatch(/^t_/);
    expect(compaction?.firstKeptTurnId).toMatch(/^t_/);

    const context = await runCli(['context', result.headTurnId, '--budget', '300', '--db', temp.dbPath, '--json']);
    const built = context.json() as { system: string; messages: Array<{ role: string }>; tokens: number };
    expect(built.tokens).toBeLessThanOrEqual(300);
    expect(built.system).toContain('Summary of the earlier conversation');
    expect(built.messages[0]?.role).toBe('user');

    const early = result.turnIds.m3 as string;
    const fork = await runCli(['fork', early, '--db', temp.dbPath, '--json']);
    const forked = fork.json() as { sessionId: string; headTurnId: string; forkPointSummarizedBy: string | null };
    expect(forked.headTurnId).toBe(early);
    expect(forked.forkPointSummarizedBy).toMatch(/^t_/);

    const tree = await runCli(['tree', result.sessionId, '--db', temp.dbPath, '--json']);
    const rendered = tree.json() as { forks: Array<{ session: { id: string } }> };
    expect(rendered.forks.map((child) => child.session.id)).toEqual([forked.sessionId]);
  });

  it('creates a session, appends with compare-and-set, and compacts on request', async () => {
    const created = (
      await runCli([
        'session',
        'create',
        '--db',
        temp.dbPath,
        '--json',
        '--context-window',
        '2000',
        '--reserve',
        '200',
        '--keep',
        '40',
      ])
    ).json() as { id: string };
    let head: string | null = null;
    for (let index = 0; index < 8; index += 1) {
      const args = [
        'turn',
        'append',
        created.id,
        '--db',
        temp.dbPath,
        '--json',
        '--role',
        index % 2 ? 'assistant' : 'user',
        '--text',
        `Step ${index}: set MAX_CONNECTIONS=${100 + index} in /etc/app/${index}.conf.`,
      ];
      if (head) args.push('--expect-head', head);
      const appended = await runCli(args);
      expect(appended.code).toBe(0);
      head = (appended.json() as { id: string }).id;
    }
    const stale = await runCli([
      'turn',
      'append',
      created.id,
      '--db',
      temp.dbPath,
      '--json',
      '--text',
      'late',
      '--expect-head',
      't_nope',
    ]);
    expect(stale.code).toBe(1);
    // An expected head that is no turn at all is a typo, not another writer (issue 13).
    expect((stale.json() as { error: { code: string } }).error.code).toBe('TURN_NOT_FOUND');

    const compacted = await runCli(['compact', created.id, '--db', temp.dbPath, '--json']);
    expect(compacted.code).toBe(0);
    const compaction = compacted.json() as { turnType: string; tokensBefore: number; tokensAfter: number };
    expect(compaction.turnType).toBe('compaction');
    expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
  });
});

describe('nexus errors and help', () => {
  it('reports unknown ids as one line on stderr and an error object with --json, never a stack', async () => {
    expect((await runCli(['session', 'create', '--db', temp.dbPath])).code).toBe(0);
    const run = await runCli(['context', 't_missing', '--db', temp.dbPath, '--json']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.json()).toEqual({ error: { code: 'TURN_NOT_FOUND', message: expect.stringContaining('t_missing') } });
  });

  it('rejects a malformed conversation file with the reason and writes no session', async () => {
    const file = path.join(temp.folder, 'broken.json');
    writeFileSync(file, '{"format": "nexus-eval/v1", "messages": [ {"id": "m1", "role": "robot", "content": "hi"} ]}');
    const run = await runCli(['import', file, '--db', temp.dbPath, '--json']);
    expect(run.code).toBe(1);
    expect((run.json() as { error: { message: string } }).error.message).toContain('messages[0].role');
    const sessions = await runCli(['session', 'list', '--db', temp.dbPath, '--json']);
    expect(sessions.json()).toEqual([]);
  });

  it('exits 2 on bad usage: unknown command, unknown flag, missing argument, non-numeric budget', async () => {
    for (const argv of [['frobnicate'], ['context', '--bogus'], ['fork'], ['context', 't_x', '--budget', 'lots']]) {
      const run = await runCli([...argv, '--db', temp.dbPath]);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^nexus: /);
    }
  });

  it('has --help for every command, naming its options', async () => {
    for (const command of COMMANDS) {
      const run = await runCli([...command.path, '--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Usage: nexus ${command.path.join(' ')}`);
      for (const option of Object.keys(command.options)) expect(run.stdout).toContain(`--${option}`);
    }
    const general = await runCli(['--help']);
    for (const command of COMMANDS) expect(general.stdout).toContain(command.path.join(' '));
  });
});
