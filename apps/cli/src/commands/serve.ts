// `nexus serve`: the ledgers over HTTP, and the web viewer, until SIGINT or SIGTERM. The first line
// printed is `listening on http://HOST:PORT`, so a script (or a test) that starts it with --port 0
// can read where it went. With NEXUS_EMBEDDINGS_* set the ledger gets an embedder: contexts fuse
// vectors and search by meaning answers.

import { DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT } from '@agent-ledger/server/defaults';
import { integerOption, stringOption, UsageError } from '../arguments.ts';
import type { Command } from '../command.ts';
import { configuredEmbedder, EMBEDDINGS_ENVIRONMENT_HELP, SERVER_WITHOUT_EMBEDDER } from '../embedder-settings.ts';

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'Serve the ledger over HTTP (/v1 API, OpenAPI, live streams) and the web viewer at /.',
  arguments: [],
  options: {
    host: {
      type: 'string',
      description: `address to listen on (default ${DEFAULT_HOST}; any other needs a token)`,
      valueName: 'HOST',
    },
    port: { type: 'string', description: `port (default ${DEFAULT_PORT}; 0 picks a free one)`, valueName: 'PORT' },
    token: {
      type: 'string',
      description: 'every /v1 and /mcp request then needs `Authorization: Bearer TOKEN` (default $NEXUS_TOKEN)',
      valueName: 'TOKEN',
    },
    'max-body': {
      type: 'string',
      description: `largest request body in bytes (default ${DEFAULT_MAX_BODY_BYTES})`,
      valueName: 'BYTES',
    },
  },
  details:
    'The API is documented in docs/http-api.md and served as OpenAPI at /v1/openapi.json. The viewer page loads without ' +
    'the token; open it as http://HOST:PORT/#token=TOKEN so it can call the API. Stops cleanly on SIGINT or SIGTERM. ' +
    `Search by meaning (GET /v1/search?mode=semantic, MCP search_history mode "semantic") needs an embedding model. ${EMBEDDINGS_ENVIRONMENT_HELP}`,
  async run({ options, io, openLedger, openEventsLedger, env }) {
    if (io.json) throw new UsageError('nexus serve runs until stopped and has no --json output.');
    const port = integerOption(options.port, 'port');
    const token = stringOption(options.token) ?? (env.NEXUS_TOKEN || undefined);
    const embedder = await configuredEmbedder(env);
    const { startHttpServer } = await import('@agent-ledger/server');
    const server = await startHttpServer({
      ledger: openLedger(embedder ? { embedder } : {}),
      events: openEventsLedger(),
      ...(embedder ? {} : { noEmbedderAdvice: SERVER_WITHOUT_EMBEDDER }),
      host: stringOption(options.host),
      port,
      token,
      maxBodyBytes: integerOption(options['max-body'], 'max-body'),
      logError: (error) =>
        process.stderr.write(`nexus serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
    });
    io.print(`listening on ${server.url}`);
    io.print(token ? 'bearer token required on /v1 and /mcp' : 'no token: loopback only');
    // Said only when on: unset, the output is what it always was.
    if (embedder) io.print(`embeddings: ${embedder.model} at ${embedder.endpoint} (search by meaning, vectors in contexts)`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await server.close();
    io.print('stopped');
    return { url: server.url };
  },
};
