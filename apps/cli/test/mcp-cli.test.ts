// `nexus mcp` without an SDK on this side: raw JSON-RPC lines to the binary's stdin. Every line it
// writes to stdout must be a JSON-RPC message (a stray log line would break every MCP client);
// its log goes to stderr. It ends when stdin closes.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { runCli, tempFolder } from './run-cli.ts';

const BIN = BUILT_CLI;

describe('nexus mcp', () => {
  it('speaks only JSON-RPC on stdout and exits when stdin closes', async () => {
    const temp = tempFolder();
    try {
      const created = await runCli(['session', 'create', '--label', 'mcp', '--db', temp.dbPath, '--json']);
      const sessionId = (created.json() as { id: string }).id;
      const child = spawn(process.execPath, [BIN, 'mcp', '--db', temp.dbPath], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_sessions', arguments: {} } });
      const deadline = Date.now() + 30_000;
      while (!stdout.includes('"id":2') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      child.stdin.end();
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      const messages = stdout
        .trimEnd()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as { jsonrpc: string; id?: number; result?: { structuredContent?: { sessions: { id: string }[] } } },
        );
      for (const message of messages) expect(message.jsonrpc).toBe('2.0');
      expect(messages.find((message) => message.id === 1)?.result).toMatchObject({ serverInfo: { name: 'nexus' } });
      expect(
        messages.find((message) => message.id === 2)?.result?.structuredContent?.sessions.map((session) => session.id),
      ).toEqual([sessionId]);
      expect(stderr).toMatch(/nexus mcp: serving/);
    } finally {
      temp.cleanup();
    }
  }, 60_000);

  it('has --help and no --json', async () => {
    const help = await runCli(['mcp', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: nexus mcp/);
    expect(help.stdout).toMatch(/claude mcp add/);
    const temp = tempFolder();
    try {
      await runCli(['session', 'create', '--db', temp.dbPath]);
      const json = await runCli(['mcp', '--db', temp.dbPath, '--json']);
      expect(json.code).toBe(2);
      expect(json.stderr).toMatch(/no --json output/);
    } finally {
      temp.cleanup();
    }
  });
});
