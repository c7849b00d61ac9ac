// MCP over Streamable HTTP at /mcp, for MCP clients that connect by URL (`claude mcp add --transport
// http nexus http://127.0.0.1:7700/mcp`). The same four read-only tools as `nexus mcp` on stdio
// (mcp-server.ts), behind the same guards as /v1: the token when the server has one, loopback only
// when it has none. Stateless: each request gets its own server and transport, so nothing is kept
// between requests and any number of clients can call at once. JSON responses, not event streams.

import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Hono } from 'hono';
import { createMcpServer } from '../mcp-server.ts';
import type { RouteContext } from './route-context.ts';

export function mcpRoute(app: Hono, { ledger }: RouteContext): void {
  app.all('/mcp', async (context) => {
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    const server = createMcpServer({ ledger });
    await server.connect(transport);
    try {
      return await transport.handleRequest(context.req.raw);
    } finally {
      // The answer is complete (JSON, not a stream): this request's server has nothing left to do.
      void server.close();
    }
  });
}
