// MCP over Streamable HTTP at /mcp, for MCP clients that connect by URL (`claude mcp add --transport
// http nexus http://127.0.0.1:7700/mcp`). The same four read-only tools as `nexus mcp` on stdio
// (mcp-server.ts), behind the same guards as /v1: the token when the server has one, loopback only
// when it has none. Stateless: each request gets its own server and transport, so nothing is kept
// between requests and any number of clients can call at once. JSON responses, not event streams.
// A POSTed body is checked here as stdio lines are (incoming-json-rpc.ts), so a message that is not
// JSON-RPC gets -32600 with its id, not the SDK's catch-all -32700.

import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Context, Hono } from 'hono';
import { readJsonRpcText } from '../incoming-json-rpc.ts';
import { createMcpServer } from '../mcp-server.ts';
import type { RouteContext } from './route-context.ts';

export function mcpRoute(app: Hono, { ledger, noEmbedderAdvice }: RouteContext): void {
  app.all('/mcp', async (context) => {
    let parsedBody: unknown;
    if (bodyIsForTheSdk(context)) {
      const incoming = readJsonRpcText(await context.req.text());
      if (!incoming.ok) return context.json(incoming.answer, 400);
      parsedBody = incoming.message;
    }
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    const server = createMcpServer({ ledger, ...(noEmbedderAdvice === undefined ? {} : { noEmbedderAdvice }) });
    await server.connect(transport);
    try {
      return await transport.handleRequest(context.req.raw, { parsedBody });
    } finally {
      // The answer is complete (JSON, not a stream): this request's server has nothing left to do.
      void server.close();
    }
  });
}

/**
 * A POST the SDK would go on to parse: its Accept and Content-Type pass the transport's own checks,
 * which come first and keep their 406 and 415.
 */
function bodyIsForTheSdk(context: Context): boolean {
  if (context.req.method !== 'POST') return false;
  const accept = context.req.header('accept') ?? '';
  return (
    accept.includes('application/json') &&
    accept.includes('text/event-stream') &&
    isJsonContentType(context.req.header('content-type'))
  );
}
