// `nexus chat --timeout 2` against a model API that sends a response's headers and then nothing (the
// built CLI as a child process, the real SDK, the loopback Messages API). Before, the SDK's timeout
// stopped at the headers and the chat waited forever; now the silence is the timeout: each attempt is
// ended, retried twice, and the line gets a clear error while the chat goes on with the next line.
// Nothing is lost: the unanswered line is in the ledger.

import { type ChildProcess, spawn } from 'node:child_process';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { contentText, type Turn } from '@agent-ledger/core';
import { type LoopbackApi, lastUserText, type RecordedRequest, startLoopbackApi } from '@agent-ledger/loopback-api';
import { DEFAULT_CHAT_MODEL } from '@agent-ledger/runtime';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

const SILENT_LINE = 'This line meets a model that goes quiet after its headers.';
const NEXT_LINE = 'And this one is answered.';

let temp: ReturnType<typeof tempFolder>;
let api: LoopbackApi | undefined;
const children: ChildProcess[] = [];
beforeEach(() => {
  temp = tempFolder();
});
afterEach(async () => {
  // A chat still waiting (the failure this test guards against) is ended, not left behind.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill();
  await api?.close();
  api = undefined;
  temp.cleanup();
});

/** Runs `nexus chat` with every line on stdin at once; resolves when the process exits (the test timeout bounds it). */
function runChat(args: string[], input: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BUILT_CLI, 'chat', ...args], { env: childEnv(env), cwd: temp.folder });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(input.map((line) => `${line}\n`).join(''));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_BASE_URL',
    'NEXUS_CHAT_MODEL',
    'NEXUS_SUMMARY_MODEL',
    'NEXUS_DB',
    'NEXUS_MODEL_TIMEOUT',
  ])
    delete env[name];
  return { ...env, ...extra };
}

async function historyOf(dbPath: string, sessionId: string): Promise<Turn[]> {
  const ledger = openAgentsLedger(dbPath);
  try {
    const session = await ledger.getSession(sessionId);
    const turns: Turn[] = [];
    for await (const turn of ledger.getFullHistory(session.headTurnId as string)) turns.push(turn);
    return turns;
  } finally {
    await ledger.close();
  }
}

it('ends a response that goes silent after its headers with a timeout error, records the line, and answers the next one', {
  timeout: 60_000,
}, async () => {
  // Headers, a first byte of the body, then silence, for the one line (every attempt at it). The
  // next line's prompt carries both lines (the first is in the ledger, unanswered).
  const answered = (request: RecordedRequest) => lastUserText(request.body).includes(NEXT_LINE);
  api = await startLoopbackApi({
    respond: (request) => (answered(request) ? { kind: 'text', text: 'Noted.' } : { kind: 'stall', partialBody: '{' }),
  });
  const server = api;
  const { code, stdout, stderr } = await runChat(['--db', temp.dbPath, '--timeout', '2'], [SILENT_LINE, NEXT_LINE], {
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: server.url,
  });

  const report = `stdout:\n${stdout}\nstderr:\n${stderr}`;
  expect(stdout, report).toContain(
    `error: The model ${DEFAULT_CHAT_MODEL} could not answer: the request timed out: the API sent its response headers, then nothing for 2 s (3 attempts ended so).`,
  );
  expect(stdout, report).toContain(`you> ${NEXT_LINE}\nassistant> Noted.\n`);
  expect(stdout, report).toMatch(/^1 of 2 messages went unanswered/m);
  expect(code, report).toBe(1);
  // The first attempt and the SDK's two retries went silent; the next line was sent once.
  expect(server.requests.filter((request) => !answered(request))).toHaveLength(3);
  expect(server.requests).toHaveLength(4);

  // Nothing lost: the unanswered line is in the ledger, then the next line and its answer.
  const sessionId = /^nexus chat · session (s_\w+) \(new\)/m.exec(stdout)?.[1] as string;
  const turns = await historyOf(temp.dbPath, sessionId);
  expect(turns.map((turn) => (turn.turnType === 'normal' ? [turn.role, contentText(turn.content)] : ['compaction']))).toEqual([
    ['user', SILENT_LINE],
    ['user', NEXT_LINE],
    ['assistant', 'Noted.'],
  ]);
});
