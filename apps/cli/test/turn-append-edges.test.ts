// `nexus turn append S --file -` (the built CLI, as a process) reads standard input whatever the
// process was handed: a shell's pipe, a file, a socket pair (Node's stdio 'pipe'), a Unix socket
// (Linux refuses to open /dev/stdin by path for a socket: ENXIO). A terminal is refused with a
// message saying what to do instead.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket, connect as socketTo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';

let folder: string;
let database: string;
let sessionId: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'nexus-append-edges-'));
  database = path.join(folder, 'ledger.db');
  const created = spawnSync(process.execPath, [BUILT_CLI, 'session', 'create', '--db', database, '--json'], {
    encoding: 'utf8',
  });
  sessionId = (JSON.parse(created.stdout) as { id: string }).id;
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const TURN = JSON.stringify({ role: 'user', content: 'sent on standard input: é and 🦆' });

/** `nexus turn append --file -` with stdin set to `stdin`; resolves with its exit code and output. */
function appendFrom(stdin: 'pipe' | number | Socket, input?: string) {
  const child = spawn(process.execPath, [BUILT_CLI, 'turn', 'append', sessionId, '--file', '-', '--db', database, '--json'], {
    stdio: [stdin, 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** The session's turns, as the ledger holds them. */
function contents(): unknown[] {
  const show = spawnSync(process.execPath, [BUILT_CLI, 'session', 'show', sessionId, '--db', database, '--json'], {
    encoding: 'utf8',
  });
  const head = (JSON.parse(show.stdout) as { headTurnId: string | null }).headTurnId;
  if (head === null) return [];
  const history = spawnSync(process.execPath, [BUILT_CLI, 'history', head, '--db', database, '--json'], { encoding: 'utf8' });
  return (JSON.parse(history.stdout) as Array<{ content: unknown }>).map((turn) => turn.content);
}

/** A loopback Unix-socket server that writes `text` to whoever connects, then closes. */
async function socketServer(text: string): Promise<{ server: Server; address: string }> {
  const address = path.join(folder, 'stdin.sock');
  const server = createServer((connection) => connection.end(text));
  await new Promise<void>((resolve) => server.listen(address, resolve));
  return { server, address };
}

describe('nexus turn append --file -', () => {
  it('reads a pipe, as a shell makes one with |', () => {
    const line = `printf '%s' "$TURN" | '${process.execPath}' '${BUILT_CLI}' turn append ${sessionId} --file - --db '${database}'`;
    const run = spawnSync('sh', ['-c', line], { encoding: 'utf8', env: { ...process.env, TURN } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(contents()).toEqual([[{ type: 'text', text: 'sent on standard input: é and 🦆' }]]);
  });

  it("reads a socket pair, which is what Node's spawn hands a child as stdio 'pipe'", async () => {
    const run = await appendFrom('pipe', TURN);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(contents()).toEqual([[{ type: 'text', text: 'sent on standard input: é and 🦆' }]]);
  });

  it('reads a file given as standard input', async () => {
    const file = path.join(folder, 'turn.json');
    writeFileSync(file, TURN);
    const run = await appendFrom(openSync(file, 'r'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(contents()).toHaveLength(1);
  });

  it('reads a Unix socket given as standard input', async () => {
    const { server, address } = await socketServer(TURN);
    try {
      const socket = socketTo(address);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const run = await appendFrom(socket);
      socket.destroy();
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(contents()).toEqual([[{ type: 'text', text: 'sent on standard input: é and 🦆' }]]);
    } finally {
      server.close();
    }
  });

  // A terminal on standard input: script(1) gives the command one (util-linux, on every Linux).
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)(
    `refuses a terminal, saying what to do instead${hasScript ? '' : ' (skipped: no script(1) here)'}`,
    () => {
      const line = [process.execPath, BUILT_CLI, 'turn', 'append', sessionId, '--file', '-', '--db', database]
        .map((word) => `'${word}'`)
        .join(' ');
      const run = spawnSync('script', ['-qec', line, '/dev/null'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 50_000,
      });
      expect(run.status).toBe(2);
      expect(run.stdout).toContain('nexus: --file - reads standard input, which is a terminal here: pipe the JSON in');
      expect(contents()).toEqual([]);
    },
  );
});
