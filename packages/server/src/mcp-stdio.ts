// Runs the MCP server on a pair of streams (the process's stdin and stdout for `nexus mcp`) until
// the client closes its end or `signal` aborts. Nothing but the protocol is written to `output`.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.ts';

export interface McpStdioOptions extends McpServerOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Stops the server (SIGINT / SIGTERM in the CLI). */
  signal?: AbortSignal;
}

/** Resolves once the session is over and the server closed. */
export async function serveMcpOverStdio(options: McpStdioOptions): Promise<void> {
  const server = createMcpServer(options);
  const transport = new StdioServerTransport(options.input as NodeJS.ReadStream, options.output as NodeJS.WriteStream);
  const finished = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    options.input.once('end', () => resolve());
    options.input.once('close', () => resolve());
    if (options.signal?.aborted) resolve();
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await finished;
  await server.close();
}
