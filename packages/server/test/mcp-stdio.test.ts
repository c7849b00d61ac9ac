// `nexus mcp --db FILE` as a child process, through the SDK's StdioClientTransport: the real
// binary, the real stdio framing. Anything but protocol on stdout would break the client here.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { openFixture, seed } from './server-fixture.ts';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('nexus mcp over stdio', () => {
  it('serves the tools to an SDK client in another process', async () => {
    const fixture = openFixture();
    const seeded = await seed(fixture.ledger, fixture.events);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['apps/cli/dist/bin/nexus.js', 'mcp', '--db', fixture.dbPath],
      cwd: repository,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'stdio-test', version: '0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['expand', 'get_context', 'list_sessions', 'search_history']);
      const result = await client.callTool({ name: 'search_history', arguments: { query: 'zebracorn' } });
      const hits = (result.structuredContent as { hits: { turnId: string; via: string | null }[] }).hits;
      expect(hits[0]?.turnId).toBe(seeded.flatCompactionId);
      const expanded = await client.callTool({ name: 'expand', arguments: { id: seeded.flatCompactionId } });
      expect((expanded.structuredContent as { turns: { id: string }[] }).turns[0]?.id).toBe(seeded.summarizedTurnId);
    } finally {
      await client.close();
      await fixture.cleanup();
    }
    expect(stderr).toMatch(/nexus mcp: serving .*ledger\.db on stdio/);
  }, 60_000);
});
