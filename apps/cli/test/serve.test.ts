// `nexus serve` as the real binary: the first line says where it listens (--port 0 picks a free
// port), the API answers there, SIGTERM closes it cleanly; and the refusals that keep it safe.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { runCli, tempFolder } from './run-cli.ts';

const BIN = BUILT_CLI;

describe('nexus serve', () => {
  it('prints `listening on http://HOST:PORT` first, serves the API there, and stops on SIGTERM', async () => {
    const temp = tempFolder();
    const child = spawn(process.execPath, [BIN, 'serve', '--db', temp.dbPath, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const iterator = lines[Symbol.asyncIterator]();
      const first = (await iterator.next()).value as string;
      const match = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(first);
      expect(match, `${first}\n${stderr}`).not.toBeNull();
      const url = match?.[1] as string;
      expect(Number(match?.[2])).toBeGreaterThan(0);

      const created = await fetch(`${url}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'from the test' }),
      });
      expect(created.status).toBe(201);
      const session = (await created.json()) as { id: string };
      const appended = await fetch(`${url}/v1/sessions/${session.id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'user', content: 'hello over http' }),
      });
      expect(appended.status).toBe(201);
      // An open stream must not keep the server from closing.
      const stream = await fetch(`${url}/v1/sessions/${session.id}/stream`);
      expect(stream.status).toBe(200);

      child.kill('SIGTERM');
      const rest: string[] = [];
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      expect(rest).toContain('stopped');
      await stream.body?.cancel().catch(() => {});
      // What the server wrote is in the file for the next reader.
      const listed = await runCli(['session', 'list', '--db', temp.dbPath, '--json']);
      expect(JSON.stringify(listed.json())).toContain(session.id);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      temp.cleanup();
    }
  }, 60_000);

  it('takes the token from NEXUS_TOKEN and then asks for it on /v1', async () => {
    const temp = tempFolder();
    const child = spawn(process.execPath, [BIN, 'serve', '--db', temp.dbPath, '--port', '0', '--host', '0.0.0.0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NEXUS_TOKEN: 'from-env' },
    });
    try {
      const first = (await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next()).value as string;
      const port = /^listening on http:\/\/0\.0\.0\.0:(\d+)$/.exec(first)?.[1];
      expect(port, first).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${port}/v1/sessions`)).status).toBe(401);
      const allowed = await fetch(`http://127.0.0.1:${port}/v1/sessions`, { headers: { authorization: 'Bearer from-env' } });
      expect(allowed.status).toBe(200);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      temp.cleanup();
    }
  }, 60_000);

  it('refuses a non-loopback host without a token, bad ports and a body limit of 0', async () => {
    const temp = tempFolder();
    try {
      const open = await runCli(['serve', '--db', temp.dbPath, '--host', '0.0.0.0', '--port', '0']);
      expect(open.code).toBe(1);
      expect(open.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0 without a token/);
      expect(open.stdout).toBe('');
      const badPort = await runCli(['serve', '--db', temp.dbPath, '--port', 'eighty']);
      expect(badPort.code).toBe(2);
      expect(badPort.stderr).toMatch(/--port takes a whole number/);
      const tooHigh = await runCli(['serve', '--db', temp.dbPath, '--port', '70000']);
      expect(tooHigh.code).toBe(1);
      expect(tooHigh.stderr).toMatch(/Port 70000/);
      const noBody = await runCli(['serve', '--db', temp.dbPath, '--port', '0', '--max-body', '0']);
      expect(noBody.code).toBe(1);
      expect(noBody.stderr).toMatch(/at least 1 byte, got 0 \(--max-body\)/);
    } finally {
      temp.cleanup();
    }
  });

  it('has --help', async () => {
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: nexus serve/);
    for (const option of ['--host', '--port', '--token', '--max-body']) expect(help.stdout).toContain(option);
  });
});
