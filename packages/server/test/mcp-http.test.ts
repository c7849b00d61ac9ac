// MCP over Streamable HTTP at /mcp on the HTTP server: the SDK's own Client with its
// StreamableHTTPClientTransport, against a real server on loopback. The same tools as on stdio, and
// the same rules as /v1: a token when the server has one (401 without it), a loopback Host when not.

import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../src/index.ts';
import { type Fixture, openFixture, type Seeded, seed } from './server-fixture.ts';

let fixture: Fixture;
let seeded: Seeded;
let server: RunningHttpServer | null = null;
beforeEach(async () => {
  fixture = openFixture();
  seeded = await seed(fixture.ledger, fixture.events);
});
afterEach(async () => {
  await server?.close();
  server = null;
  await fixture.cleanup();
});

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '0' });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

describe('MCP at /mcp on nexus serve', () => {
  it('lists and calls the tools over HTTP, behind the token', async () => {
    server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0, token: 's3cret' });
    const refused = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    await expect(connect(server.url, 'wrong')).rejects.toThrow();

    const client = await connect(server.url, 's3cret');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['expand', 'get_context', 'list_sessions', 'search_history']);
      const found = (await client.callTool({
        name: 'search_history',
        arguments: { query: 'zebracorn', raw: true },
      })) as unknown as {
        structuredContent: { hits: Array<{ turnId: string }> };
      };
      expect(found.structuredContent.hits.map((hit) => hit.turnId)).toContain(seeded.summarizedTurnId);
    } finally {
      await client.close();
    }
  });

  it('without a token answers loopback clients only', async () => {
    server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
    const client = await connect(server.url);
    try {
      const listed = (await client.callTool({ name: 'list_sessions', arguments: {} })) as unknown as {
        structuredContent: { sessions: unknown[] };
      };
      expect(listed.structuredContent.sessions.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    // A page on another site that rebinds its DNS name to 127.0.0.1 sends its own Host: refused.
    const url = new URL(`${server.url}/mcp`);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            host: 'attacker.example',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    });
    expect(status).toBe(403);
  });
});
