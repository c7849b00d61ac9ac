// The HTTP API as a hono app: guards first (host, token, origin, body size), then the routes, and
// one error handler and one not-found handler so every failure has the same JSON shape. The app
// has no socket of its own: tests call `app.request`, start-http-server.ts puts it on one.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { HeadConflictError } from '@agent-ledger/core';
import type { EventsLedger } from '@agent-ledger/events-ledger';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { loopbackOnly, requireToken, sameOriginWrites } from './access-guard.ts';
import { DEFAULT_MAX_BODY_BYTES } from './defaults.ts';
import { HeadContention, type HeadContentionOptions } from './head-contention.ts';
import { HttpError, respondWithError } from './http-errors.ts';
import { INVALID_REQUEST, jsonRpcError } from './incoming-json-rpc.ts';
import { openApiDocument } from './openapi.ts';
import { mcpRoute } from './routes/mcp-route.ts';
import { searchAndEventRoutes } from './routes/search-and-event-routes.ts';
import { sessionRoutes } from './routes/session-routes.ts';
import { turnRoutes } from './routes/turn-routes.ts';
import { SessionSignals } from './session-signals.ts';
import { DEFAULT_VIEWER_DIRECTORY, viewerFile } from './viewer-files.ts';

export interface HttpAppOptions {
  ledger: AgentsLedger;
  events: EventsLedger;
  /** With a token every /v1 and /mcp request needs `Authorization: Bearer <token>`; without, loopback Host names only. */
  token?: string;
  /** The viewer's static files (packages/server/viewer by default). */
  viewerDirectory?: string;
  /** Largest request body, in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** How often live streams read the head for writes from other processes (default 500 ms). */
  pollIntervalMs?: number;
  heartbeatMs?: number;
  /** Aborted when the server shuts down: live streams end so their connections can close. */
  shutdown?: AbortSignal;
  /** Where unexpected (5xx) errors are reported; stderr by default. */
  logError?: (error: unknown) => void;
  /** Shared with the MCP server or tests; a new one by default. */
  signals?: SessionSignals;
  /** How a 409 HEAD_CONFLICT's Retry-After is drawn and how long a winner's answer may wait (head-contention.ts). */
  headContention?: HeadContentionOptions;
  /**
   * Set by a program that opened the ledger without an embedder, saying in its own terms how to give
   * it one (`nexus serve` names $NEXUS_EMBEDDINGS_URL and _MODEL): a search by meaning (HTTP
   * mode=semantic, MCP mode "semantic") is then refused with EMBEDDER_NOT_CONFIGURED (400) and this
   * text. Unset, the ledger is asked, and one without an embedder refuses by itself (INVALID_INPUT).
   */
  noEmbedderAdvice?: string;
}

export function createHttpApp(options: HttpAppOptions): Hono {
  const app = new Hono();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const viewerDirectory = options.viewerDirectory ?? DEFAULT_VIEWER_DIRECTORY;
  const logError = options.logError ?? ((error: unknown) => console.error('nexus serve:', error));
  const context = {
    ledger: options.ledger,
    events: options.events,
    signals: options.signals ?? new SessionSignals(),
    contention: new HeadContention(options.headContention),
    stream: { pollIntervalMs: options.pollIntervalMs, heartbeatMs: options.heartbeatMs, shutdown: options.shutdown },
    ...(options.noEmbedderAdvice === undefined ? {} : { noEmbedderAdvice: options.noEmbedderAdvice }),
  };

  if (!options.token) app.use('*', loopbackOnly());
  // The page may load without the token (it reads it from #token=… and sends it itself); data may not.
  if (options.token) app.use('/v1/*', requireToken(options.token));
  if (options.token) app.use('/mcp', requireToken(options.token));
  app.use('/v1/*', sameOriginWrites());
  app.use('/mcp', sameOriginWrites());
  limitBodies(app, maxBodyBytes);

  app.get('/v1/openapi.json', (c) => c.json(openApiDocument()));
  sessionRoutes(app, context);
  turnRoutes(app, context);
  searchAndEventRoutes(app, context);
  mcpRoute(app, context);

  app.get('/', async (c) => (await viewerFile(viewerDirectory, 'index.html')) ?? notFound(c.req.path));
  app.get('/viewer/:file', async (c) => (await viewerFile(viewerDirectory, c.req.param('file'))) ?? notFound(c.req.path));

  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return respondWithError(
        c,
        new HttpError(
          'METHOD_NOT_ALLOWED',
          `${c.req.method} ${c.req.path} is not a route; this path answers ${allowed.join(', ')}.`,
        ),
      );
    }
    return respondWithError(
      c,
      new HttpError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}; GET /v1/openapi.json lists the routes.`),
    );
  });
  app.onError((error, c) => {
    if (HeadConflictError.isInstance(error)) askToRetryLater(c, context.contention.conflicted(error.sessionId));
    const response = respondWithError(c, error);
    if (response.status >= 500) logError(error);
    return response;
  });

  function notFound(requestPath: string): never {
    throw new HttpError('NOT_FOUND', `No viewer file at ${requestPath}.`);
  }
  return app;
}

/**
 * A 409's wait, in whole seconds (Retry-After, which any HTTP client reads: 0 for the usual
 * sub-second wait) and in milliseconds (Retry-After-Ms, which the OpenAI and Anthropic SDKs read;
 * the jitter is only visible there).
 */
function askToRetryLater(context: Context, milliseconds: number): void {
  context.header('Retry-After', String(Math.floor(milliseconds / 1000)));
  context.header('Retry-After-Ms', String(milliseconds));
}

/** Bodies over the limit are refused before a route reads them, in the shape each kind of client reads. */
function limitBodies(app: Hono, maxBodyBytes: number): void {
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        respondWithError(
          c,
          new HttpError('BODY_TOO_LARGE', `The request body is over the limit of ${maxBodyBytes} bytes; send smaller batches.`),
        ),
    }),
  );
  // An MCP client reads JSON-RPC: the same refusal, said as a JSON-RPC error (id null: the body was not read).
  app.use(
    '/mcp',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        c.json(
          jsonRpcError(
            null,
            INVALID_REQUEST,
            `Invalid Request: the request body is over the limit of ${maxBodyBytes} bytes; it was not read.`,
          ),
          413,
        ),
    }),
  );
}

/** The methods some route of `app` answers at `path` (GET brings HEAD), for a 405's Allow header. */
function allowedMethods(app: Hono, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    // Middleware is registered as ALL; only handlers name a method.
    if (route.method === 'ALL') continue;
    const pattern = route.path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    if (new RegExp(`^${pattern}$`).test(path)) {
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
    }
  }
  return [...methods];
}
