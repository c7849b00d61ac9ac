// `nexus mcp`: the ledger as an MCP server on stdio, for Claude Code, Cursor and any MCP client.
// stdout carries the protocol, so this command prints nothing there: its log line goes to stderr.
// It ends when the client closes stdin, or on SIGINT / SIGTERM.

import { displayLocation } from '@agent-ledger/store';
import { UsageError } from '../arguments.ts';
import type { Command } from '../command.ts';
import { configuredEmbedder, EMBEDDINGS_ENVIRONMENT_HELP, SERVER_WITHOUT_EMBEDDER } from '../embedder-settings.ts';

export const mcpCommand: Command = {
  path: ['mcp'],
  summary: 'Serve the ledger to MCP clients on stdio (search_history, expand, get_context, list_sessions).',
  arguments: [],
  options: {},
  readsOnly: true,
  details:
    'Read-only. Add it to Claude Code with `claude mcp add nexus -- nexus mcp --db /path/to/ledger.db`; ' +
    'docs/mcp.md has Cursor and other clients. Logs go to stderr; stdout is the protocol. search_history takes ' +
    `mode "semantic" (by the vectors \`nexus embed\` stored) when an embedding model is set. ${EMBEDDINGS_ENVIRONMENT_HELP}`,
  async run({ io, openLedger, dbPath, env }) {
    if (io.json) throw new UsageError('nexus mcp speaks MCP on stdout and has no --json output.');
    const embedder = await configuredEmbedder(env);
    const ledger = openLedger(embedder ? { embedder } : {});
    // Opened before saying it serves: a ledger that is not there is refused first, and nothing more.
    await ledger.listSessions({ limit: 1, offset: 0 });
    const stop = new AbortController();
    const abort = () => stop.abort();
    process.once('SIGINT', abort);
    process.once('SIGTERM', abort);
    const vectors = embedder ? `, embeddings ${embedder.model}` : '';
    process.stderr.write(`nexus mcp: serving ${displayLocation(dbPath)} on stdio${vectors}\n`);
    try {
      const { serveMcpOverStdio } = await import('@agent-ledger/server');
      await serveMcpOverStdio({
        ledger,
        input: io.stdin,
        output: process.stdout,
        signal: stop.signal,
        ...(embedder ? {} : { noEmbedderAdvice: SERVER_WITHOUT_EMBEDDER }),
      });
    } finally {
      process.off('SIGINT', abort);
      process.off('SIGTERM', abort);
    }
    return undefined;
  },
};
