// Codex feeding the ledger through its hooks, driven as Codex drives them: `nexus hooks install
// codex` writes ~/.codex/hooks.json, and each entry's command runs through a shell with Codex's event
// JSON on stdin while the rollout file grows. After Codex compacts (a `compacted` line), a prompt
// about what the compaction dropped gets it back; the live ledger equals a batch import.

import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

const SESSION = '0199cccc-0000-7ccc-8ddd-000000000001';

let temp: ReturnType<typeof tempFolder>;
let home = '';
beforeEach(() => {
  temp = tempFolder();
  home = path.join(temp.folder, 'home');
});
afterEach(() => temp.cleanup());

const env = () => ({ ...process.env, HOME: home, NEXUS_DB: '' });
let clock = Date.parse('2026-05-05T09:00:00.000Z');
const at = () => {
  clock += 30_000;
  return new Date(clock).toISOString();
};
const item = (payload: Record<string, unknown>) => ({ timestamp: at(), type: 'response_item', payload });
const said = (role: 'user' | 'assistant', text: string) =>
  item({ type: 'message', role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] });

function fire(event: string, input: Record<string, unknown>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const settings = JSON.parse(readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8'));
  const command = settings.hooks[event][0].hooks[0].command as string;
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
    child.stdin.end(
      JSON.stringify({ hook_event_name: event, session_id: SESSION, cwd: temp.folder, model: 'gpt-5.5', ...input }),
    );
  });
}

describe('Codex feeding the ledger through its hooks', () => {
  it('mirrors the rollout as it grows and gives back what its compaction dropped', async () => {
    const install = spawnSync(process.execPath, [BUILT_CLI, 'hooks', 'install', 'codex', '--command', BUILT_CLI], {
      env: env(),
      encoding: 'utf8',
    });
    expect(install.status, install.stderr).toBe(0);
    const rollout = path.join(temp.folder, `rollout-2026-05-05T09-00-00-${SESSION}.jsonl`);
    const write = (lines: object[]) => appendFileSync(rollout, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    writeFileSync(rollout, '');
    write([
      { timestamp: at(), type: 'session_meta', payload: { id: SESSION, timestamp: at(), cwd: '/w/api', cli_version: '0.169.0' } },
    ]);
    const base = { transcript_path: rollout };
    const exchanges: Array<[string, string]> = [
      ['Run the orders tests.', '3 failed: the fixture orders_v2.json has a stale TAX_RATE.'],
      ['What is the staging queue called?', 'The staging queue is orders-kinglet-9 on the eu-west broker.'],
      ['Regenerate the fixture with TAX_RATE 0.0825.', 'Regenerated orders_v2.json; all 60 tests pass.'],
      ['Update the changelog.', 'Added the TAX_RATE fix under 4.2.1.'],
    ];
    for (const [index, [prompt, reply]] of exchanges.entries()) {
      const turn = `turn-${index}`;
      expect((await fire('UserPromptSubmit', { ...base, turn_id: turn, prompt, permission_mode: 'default' })).stdout).toBe('');
      write([said('user', prompt), said('assistant', reply)]);
      expect(
        (await fire('Stop', { ...base, turn_id: turn, stop_hook_active: false, last_assistant_message: reply })).status,
      ).toBe(0);
    }
    expect((await fire('PreCompact', { ...base, turn_id: 'turn-4', trigger: 'auto' })).status).toBe(0);
    write([
      { timestamp: at(), type: 'compacted', payload: { message: 'Orders tests fixed (TAX_RATE 0.0825); changelog updated.' } },
    ]);
    expect((await fire('PostCompact', { ...base, turn_id: 'turn-4', trigger: 'auto' })).status).toBe(0);

    const answer = await fire('UserPromptSubmit', {
      ...base,
      turn_id: 'turn-5',
      prompt: 'Which queue does staging use?',
      permission_mode: 'default',
    });
    expect(answer.status).toBe(0);
    const recall = JSON.parse(answer.stdout).hookSpecificOutput;
    expect(recall.hookEventName).toBe('UserPromptSubmit');
    expect(recall.additionalContext).toContain('orders-kinglet-9');

    const batch = path.join(temp.folder, 'batch.db');
    expect(spawnSync(process.execPath, [BUILT_CLI, 'import', rollout, '--db', batch]).status).toBe(0);
    const texts = async (database: string) => {
      const ledger = openAgentsLedger(database, { mustExist: true });
      try {
        const [session] = await ledger.listSessions();
        const turns: string[] = [];
        for await (const turn of ledger.getFullHistory(session?.headTurnId as string))
          turns.push(turn.turnType === 'compaction' ? `compaction ${turn.summary}` : JSON.stringify(turn.content));
        return turns;
      } finally {
        await ledger.close();
      }
    };
    expect(await texts(path.join(home, '.nexus', 'ledger.db'))).toEqual(await texts(batch));
  });
});
