// Runs the MCP server on a pair of streams (the process's stdin and stdout for `nexus mcp`) until
// the client closes its end (after the requests it sent are answered) or `signal` aborts. Nothing
// but the protocol is written to `output`; reading it is mcp-line-transport.ts's job.

import { DEFAULT_MAX_BODY_BYTES } from './defaults.ts';
import { McpLineTransport } from './mcp-line-transport.ts';
import { createMcpServer, type McpServerOptions } from './mcp-server.ts';

export interface McpStdioOptions extends McpServerOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Stops the server (SIGINT / SIGTERM in the CLI). */
  signal?: AbortSignal;
  /** The longest message (line) read, in bytes; a longer one is answered with an error (default 4 MiB, as HTTP bodies). */
  maxMessageBytes?: number;
}

/** Resolves once the session is over and the server closed. */
export async function serveMcpOverStdio(options: McpStdioOptions): Promise<void> {
  const server = createMcpServer(options);
  const transport = new McpLineTransport({
    input: options.input,
    output: options.output,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_BODY_BYTES,
  });
  const stopped = new Promise<void>((resolve) => {
    if (options.signal?.aborted) resolve();
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await Promise.race([transport.finished, stopped]);
  await server.close();
}
