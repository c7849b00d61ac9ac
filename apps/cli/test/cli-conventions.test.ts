// The CLI's conventions, as a newcomer meets them: a mistyped command or option is a usage mistake
// (exit 2) with the one meant suggested, `--version`, a group's subcommands, a session id where a
// turn id goes, one exit-code table (0 done, 1 failed, 2 usage), messages in the terms of whoever
// asked (the library's, the CLI's, an MCP tool's), and search output without engine scores.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { runCli, tempFolder } from './run-cli.ts';

const MANIFEST = JSON.parse(
  readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../package.json'), 'utf8'),
) as { version: string };

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(() => temp.cleanup());

async function sessionWithTurns(): Promise<{ sessionId: string; headTurnId: string }> {
  const ledger = openAgentsLedger(temp.dbPath);
  try {
    const session = await ledger.createSession({ label: 'conventions' });
    await ledger.appendTurn(session.id, { role: 'user', content: 'The staging cache is redis-quokka-7.staging.internal.' });
    const head = await ledger.appendTurn(session.id, { role: 'assistant', content: 'Noted: redis-quokka-7.' });
    return { sessionId: session.id, headTurnId: head.id };
  } finally {
    await ledger.close();
  }
}

/** The message a promise rejects with (it must reject). */
async function messageOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a rejection');
}

describe('mistyped commands and options', () => {
  it('an unknown command is a usage mistake (exit 2) naming the command meant, with or without --help', async () => {
    for (const argv of [
      ['serach', 'redis'],
      ['serach', '--help'],
    ]) {
      const run = await runCli(argv);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr).toBe(
        'nexus: unknown command "serach". Did you mean `nexus search`? `nexus --help` lists the commands.\n',
      );
      expect(run.stdout).toBe('');
    }
    const far = await runCli(['frobnicate']);
    expect(far.code).toBe(2);
    expect(far.stderr).not.toContain('Did you mean');
    const sub = await runCli(['session', 'lst']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('Did you mean `nexus session list`?');
  });

  it('an unknown option names the option meant, never parseArgs’s own text', async () => {
    const run = await runCli(['search', 'redis', '--lmit', '3', '--db', temp.dbPath]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'nexus: unknown option --lmit for `nexus search`. Did you mean --limit? See `nexus search --help`.\n',
    );
    const missingValue = await runCli(['search', 'redis', '--limit']);
    expect(missingValue.code).toBe(2);
    expect(missingValue.stderr).toContain('--limit needs a value (--limit N)');
    expect(missingValue.stderr).not.toMatch(/argument missing|To specify a positional/);
  });

  it('--version prints the package version; a group alone lists its subcommands', async () => {
    const version = await runCli(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${MANIFEST.version}\n` });
    const group = await runCli(['session']);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('nexus session create');
    expect(group.stdout).toContain('nexus session list');
    expect(group.stdout).toContain('nexus session show');
    expect((await runCli(['--help'])).stdout).toContain('Exit status: 0 done, 1 the command failed');
  });
});

describe('one exit-code table', () => {
  it('0 done, 1 failed, 2 a usage mistake, whatever the command', async () => {
    const { sessionId } = await sessionWithTurns();
    const cases: Array<[string[], number]> = [
      [['session', 'list', '--db', temp.dbPath], 0],
      [['session', 'list', '--limit', '0', '--db', temp.dbPath], 2],
      [['session', 'list', '--limit', 'many', '--db', temp.dbPath], 2],
      [['export', sessionId, '--format', 'html', '--db', temp.dbPath], 2],
      [['search', '', '--db', temp.dbPath], 2],
      [['history'], 2],
      [['history', 't_missing', '--db', temp.dbPath], 1],
      [['session', 'show', 's_missing', '--db', temp.dbPath], 1],
      [['events', 'list', '--db', path.join(temp.folder, 'none.db')], 2],
      [['session', 'list', '--db', path.join(temp.folder, 'none.db')], 1],
    ];
    for (const [argv, code] of cases) expect((await runCli(argv)).code, argv.join(' ')).toBe(code);
  });

  it('session list --limit 0 says what is wrong, and an offset past the end says so, not "no sessions yet"', async () => {
    await sessionWithTurns();
    const zero = await runCli(['session', 'list', '--limit', '0', '--db', temp.dbPath]);
    expect(zero.stderr).toContain('--limit must be at least 1');
    const past = await runCli(['session', 'list', '--offset', '5', '--db', temp.dbPath]);
    expect(past).toMatchObject({ code: 0, stdout: 'no sessions after the first 5 (--offset 5)\n' });
  });
});

describe('a session id where a turn id goes', () => {
  it('history, context and fork read at the session head', async () => {
    const { sessionId, headTurnId } = await sessionWithTurns();
    const bySession = await runCli(['history', sessionId, '--db', temp.dbPath, '--json']);
    const byTurn = await runCli(['history', headTurnId, '--db', temp.dbPath, '--json']);
    expect(bySession.code).toBe(0);
    expect(bySession.json()).toEqual(byTurn.json());
    const context = await runCli(['context', sessionId, '--db', temp.dbPath, '--json']);
    expect((context.json() as { includedTurnIds: string[] }).includedTurnIds.at(-1)).toBe(headTurnId);
    const fork = await runCli(['fork', sessionId, '--db', temp.dbPath, '--json']);
    expect((fork.json() as { headTurnId: string }).headTurnId).toBe(headTurnId);
  });

  it('an empty session says it has no head; an unknown id still says no turn has it', async () => {
    const created = await runCli(['session', 'create', '--db', temp.dbPath, '--json']);
    const empty = (created.json() as { id: string }).id;
    const run = await runCli(['history', empty, '--db', temp.dbPath]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`session ${empty} has no turns yet`);
    const unknown = await runCli(['history', 's_nope', '--db', temp.dbPath]);
    expect(unknown.stderr).toContain('No turn with id "s_nope"');
  });
});

describe('messages in the terms of whoever asked', () => {
  it('the library names its own functions; the CLI names its commands', async () => {
    await sessionWithTurns();
    const ledger = openAgentsLedger(temp.dbPath);
    try {
      const error = await messageOf(ledger.getSession('s_missing'));
      expect(error).toContain('listSessions()');
      expect(error).not.toContain('nexus');
      const turn = await messageOf(ledger.getTurn('t_missing'));
      expect(turn).toContain('getFullHistory(headTurnId)');
      expect(turn).not.toContain('nexus');
    } finally {
      await ledger.close();
    }
    const cli = await runCli(['session', 'show', 's_missing', '--db', temp.dbPath]);
    expect(cli.stderr).toContain('`nexus session list --db');
    expect(cli.stderr).not.toContain('listSessions()');
    const none = await runCli(['session', 'list', '--db', path.join(temp.folder, 'none.db')]);
    expect(none.stderr).toContain('Check the path (--db or $NEXUS_DB)');
  });

  it('nexus mcp refuses a ledger that is not there before it says it serves', () => {
    const missing = path.join(temp.folder, 'missing.db');
    const run = spawnSync(process.execPath, [BUILT_CLI, 'mcp', '--db', missing], { encoding: 'utf8', input: '' });
    expect(run.status).toBe(1);
    expect(run.stderr).not.toContain('serving');
    expect(run.stderr).toContain('No ledger database at');
    expect(run.stdout).toBe('');
    expect(existsSync(missing)).toBe(false);
  });
});

describe('search output', () => {
  it('lists hits best first with their session and time, no engine score (those stay in --json)', async () => {
    const { sessionId } = await sessionWithTurns();
    const run = await runCli(['search', 'quokka', '--db', temp.dbPath]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(new RegExp(`^t_\\S+  ${sessionId}  \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}  `));
    expect(run.stdout).not.toMatch(/ -?\d+\.\d\d /);
  });
});
