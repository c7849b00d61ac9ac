// Claude Code feeding the ledger live, driven the way Claude Code drives it: `nexus hooks install`
// writes the hook entries into a scratch $HOME's settings, and each entry's command is run as
// Claude Code runs it (`sh -c` with the event's JSON on stdin), while the session's transcript grows
// line by line: a prompt hook before each prompt, a Stop hook after each reply, PreCompact, the
// compaction lines, SessionStart(compact), PostCompact, then a prompt about a fact the compaction
// dropped. The live ledger must equal a batch import of the finished file, the prompt hook must give
// the dropped fact back, and a broken ledger must never block a prompt.

import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { claudeSession, type TranscriptLine } from './claude-transcript.ts';
import { tempFolder } from './run-cli.ts';

let temp: ReturnType<typeof tempFolder>;
let home = '';
beforeEach(() => {
  temp = tempFolder();
  home = path.join(temp.folder, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
});
afterEach(() => temp.cleanup());

const env = () => ({ ...process.env, HOME: home, NEXUS_DB: '' });

function install(extra: string[] = []): void {
  const run = spawnSync(process.execPath, [BUILT_CLI, 'hooks', 'install', 'claude-code', '--command', BUILT_CLI, ...extra], {
    env: env(),
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
}

/** The command the settings give an event, as Claude Code would read it. */
function commandFor(event: string): string {
  const settings = JSON.parse(readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'));
  const command = settings.hooks[event]?.[0]?.hooks?.[0]?.command;
  expect(command, event).toMatch(/hook claude-code/);
  return command as string;
}

interface HookRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an event's hook as Claude Code does: the command through a shell, the event's JSON on stdin. */
function fire(event: string, input: Record<string, unknown>, command = commandFor(event)): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { env: env(), cwd: temp.folder });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(JSON.stringify({ hook_event_name: event, cwd: temp.folder, ...input }));
  });
}

/** Every session's label and its line's turns, as text. */
async function holdings(database: string): Promise<string[]> {
  const ledger = openAgentsLedger(database, { mustExist: true });
  try {
    const lines: string[] = [];
    for (const session of await ledger.listSessions({ limit: 100, offset: 0 })) {
      for await (const turn of ledger.getFullHistory(session.headTurnId as string)) {
        lines.push(
          `${session.label} ${turn.turnType === 'compaction' ? `compaction ${turn.summary}` : JSON.stringify(turn.content)}`,
        );
      }
    }
    return lines.sort();
  } finally {
    await ledger.close();
  }
}

describe('Claude Code feeding the ledger through its hooks', () => {
  it('mirrors the session as it happens and gives back what its compaction dropped', async () => {
    install();
    const session = claudeSession({ id: '9f1c2a33-0000-4000-8000-0000000000aa', cwd: '/w/shop' });
    const transcript = path.join(temp.folder, 'session.jsonl');
    writeFileSync(transcript, '');
    const base = { session_id: session.id, transcript_path: transcript };
    const write = (lines: TranscriptLine[]) =>
      appendFileSync(transcript, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));

    // Twelve exchanges, one of them the fact the compaction will drop; a Stop after each reply.
    for (const [index, exchange] of session.exchanges(12).entries()) {
      const prompt = await fire('UserPromptSubmit', { ...base, prompt: exchange.prompt });
      expect(prompt.status).toBe(0);
      // Before any compaction there is nothing dropped to give back.
      expect(prompt.stdout, `prompt ${index}`).toBe('');
      write(exchange.lines);
      expect((await fire('Stop', { ...base, stop_hook_active: false })).status).toBe(0);
    }

    // Claude Code compacts: PreCompact, the boundary and its summary (which leaves the cache host out).
    expect((await fire('PreCompact', { ...base, trigger: 'auto', custom_instructions: '' })).status).toBe(0);
    write(session.compaction('The team works on the checkout service: tax rounding, retry backoff, the release checklist.'));
    const resumed = await fire('SessionStart', { ...base, source: 'compact' });
    expect(resumed.status).toBe(0);
    expect(JSON.parse(resumed.stdout).hookSpecificOutput.additionalContext).toContain('search_history');
    expect((await fire('PostCompact', { ...base, trigger: 'auto', compact_summary: 'checkout service' })).status).toBe(0);

    // A prompt about what the compaction dropped: the hook gives it back, dated, with its turn id.
    const question = 'Which redis host does the staging cache use?';
    const answer = await fire('UserPromptSubmit', { ...base, prompt: question });
    expect(answer.status).toBe(0);
    const recall = JSON.parse(answer.stdout).hookSpecificOutput;
    expect(recall.hookEventName).toBe('UserPromptSubmit');
    expect(recall.additionalContext).toContain('redis-quokka-7.staging.internal');
    expect(recall.additionalContext).toMatch(/\[t_\S+ · \d{4}-\d{2}-\d{2} \d{2}:\d{2} · (user|assistant)\]/);
    expect(recall.additionalContext.length).toBeLessThan(10_000);
    // A prompt about nothing that was dropped gets nothing.
    expect((await fire('UserPromptSubmit', { ...base, prompt: 'Thanks, that helps.' })).stdout).toBe('');

    // Claude Code writes what the hook added into the transcript with the prompt; the import knows it.
    write([session.userLine(`${question}\n\n${recall.additionalContext}`)]);
    write([session.assistantLine('It is redis-quokka-7.staging.internal, port 6390.')]);
    expect((await fire('Stop', { ...base, stop_hook_active: false })).status).toBe(0);
    // Asked again after that exchange (now a later, better-scoring match for the question's words):
    // what the compaction dropped still comes back.
    const again = await fire('UserPromptSubmit', { ...base, prompt: question });
    expect(JSON.parse(again.stdout).hookSpecificOutput.additionalContext).toContain('port 6390; production uses');

    const live = await holdings(path.join(home, '.nexus', 'ledger.db'));
    expect(live.join('\n')).not.toContain('nexus-recall');
    expect(live.some((line) => line.includes(JSON.stringify([{ type: 'text', text: question }])))).toBe(true);

    // The live ledger is what one import of the finished file gives.
    const batch = path.join(temp.folder, 'batch.db');
    const imported = spawnSync(process.execPath, [BUILT_CLI, 'import', transcript, '--db', batch], { encoding: 'utf8' });
    expect(imported.status, imported.stderr).toBe(0);
    expect(live).toEqual(await holdings(batch));
  });

  it('imports a subagent as a fork at the Task call that started it, as a batch import does', async () => {
    install();
    const session = claudeSession({ id: '5ab5ab00-0000-4000-8000-0000000000bb', cwd: '/w/shop' });
    const project = path.join(temp.folder, 'projects', '-w-shop');
    const transcript = path.join(project, `${session.id}.jsonl`);
    const agentFile = path.join(project, session.id, 'subagents', 'agent-f00dcafe.jsonl');
    mkdirSync(path.dirname(agentFile), { recursive: true });
    writeFileSync(transcript, '');
    const base = { session_id: session.id, transcript_path: transcript };
    const append = (file: string, lines: TranscriptLine[]) =>
      appendFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));

    for (const exchange of session.exchanges(2)) {
      append(transcript, exchange.lines);
      expect((await fire('Stop', { ...base, stop_hook_active: false })).status).toBe(0);
    }
    // The parent asks, calls Task; the subagent works in its own file and stops; then the call's
    // result and the parent's reply, and the parent's Stop.
    append(transcript, [session.userLine('Find every test that seeds from random.')]);
    const round = session.subagentRound(
      'f00dcafe',
      'Search the tests for random seeds.',
      'test_refund and test_invoice seed from random.random().',
    );
    append(transcript, round.call);
    append(agentFile, round.agent);
    const stopped = await fire('SubagentStop', {
      ...base,
      agent_id: 'f00dcafe',
      agent_transcript_path: agentFile,
      stop_hook_active: false,
    });
    expect(stopped.status).toBe(0);
    append(transcript, round.result);
    expect((await fire('Stop', { ...base, stop_hook_active: false })).status).toBe(0);

    const database = path.join(home, '.nexus', 'ledger.db');
    const ledger = openAgentsLedger(database, { mustExist: true });
    try {
      const sessions = await ledger.listSessions({ limit: 10, offset: 0 });
      const fork = sessions.find((each) => each.label?.includes('subagent f00dcafe'));
      expect(fork?.forkedFromTurnId, 'the subagent is a fork').toBeTruthy();
      const forkPoint = await ledger.getTurn(fork?.forkedFromTurnId as string);
      expect(forkPoint.turnType === 'normal' && JSON.stringify(forkPoint.content)).toContain('"name":"Task"');
    } finally {
      await ledger.close();
    }
    const batch = path.join(temp.folder, 'batch.db');
    const imported = spawnSync(process.execPath, [BUILT_CLI, 'import', path.join(temp.folder, 'projects'), '--db', batch], {
      encoding: 'utf8',
    });
    expect(imported.status, imported.stderr).toBe(0);
    expect(await holdings(database)).toEqual(await holdings(batch));
  });

  it('never blocks a prompt: a broken ledger, a server that is down, garbage on stdin all exit 0 with one line', async () => {
    const corrupt = path.join(temp.folder, 'corrupt.db');
    writeFileSync(corrupt, 'this is not a SQLite database, it only has the name of one'.repeat(100));
    const transcript = path.join(temp.folder, 'session.jsonl');
    writeFileSync(
      transcript,
      `${JSON.stringify(claudeSession({ id: 'b0b0b0b0-0000-4000-8000-000000000001', cwd: '/w' }).userLine('hi'))}\n`,
    );
    const input = { session_id: 'b0b0b0b0-0000-4000-8000-000000000001', transcript_path: transcript, prompt: 'hello there' };
    for (const db of [corrupt, temp.folder, 'postgres://nexus@127.0.0.1:1/ledger']) {
      install(['--db', db]);
      for (const event of ['UserPromptSubmit', 'Stop', 'SessionStart']) {
        const run = await fire(event, { ...input, source: 'compact' });
        expect(run.status, `${event} on ${db}`).toBe(0);
        expect(run.stdout, `${event} on ${db}`).toBe('');
        expect(run.stderr.trim().split('\n'), `${event} on ${db}: ${run.stderr}`).toHaveLength(1);
        expect(run.stderr).toMatch(/^nexus hook: /);
      }
    }
    install();
    const garbage = await new Promise<HookRun>((resolve) => {
      const child = spawn('sh', ['-c', commandFor('UserPromptSubmit')], { env: env() });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += String(chunk);
      });
      child.on('close', (status) => resolve({ status, stdout: '', stderr }));
      child.stdin.end('{"not":"closed"');
    });
    expect(garbage.status).toBe(0);
    const log = readFileSync(path.join(home, '.nexus', 'hooks.log'), 'utf8');
    expect(log).toMatch(/claude-code user-prompt-submit failed \d+ms stdin is not the hook's JSON/);
  });

  it('two sessions writing one ledger at once lose nothing', async () => {
    install();
    const runs = ['c0ffee00-0000-4000-8000-000000000001', 'c0ffee00-0000-4000-8000-000000000002'].map(async (id) => {
      const session = claudeSession({ id, cwd: `/w/${id.slice(-1)}` });
      const transcript = path.join(temp.folder, `${id}.jsonl`);
      writeFileSync(transcript, '');
      for (const exchange of session.exchanges(8)) {
        appendFileSync(transcript, exchange.lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
        const stop = await fire('Stop', { session_id: id, transcript_path: transcript, stop_hook_active: false });
        expect(stop.status).toBe(0);
        expect(stop.stderr).toBe('');
      }
      return transcript;
    });
    const transcripts = await Promise.all(runs);
    const batch = path.join(temp.folder, 'batch.db');
    expect(spawnSync(process.execPath, [BUILT_CLI, 'import', ...transcripts, '--db', batch]).status).toBe(0);
    expect(await holdings(path.join(home, '.nexus', 'ledger.db'))).toEqual(await holdings(batch));
  });
});
