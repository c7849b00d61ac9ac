// The OpenAPI 3.1 document served at GET /v1/openapi.json. Routes are listed here by hand (with
// their request shapes taken from the same zod schemas the handlers use), and a test checks that
// every route the app registers appears here, so the document and the app cannot drift apart.

import { z } from 'zod';
import {
  appendEventsBody,
  appendTurnsBody,
  compactBody,
  contextQuery,
  createSessionBody,
  eventsQuery,
  forkBody,
  listSessionsQuery,
  searchQuery,
  sessionViewQuery,
  verifyQuery,
} from './request-schemas.ts';

interface RouteDoc {
  method: 'get' | 'post';
  /** OpenAPI form: `/v1/sessions/{id}`. */
  path: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The success status and what it returns. */
  success: [status: number, description: string, contentType?: string];
  /** A second success status, when the route has one (200 for a batch of events already stored). */
  alsoSuccess?: [status: number, description: string];
  /** Error statuses this route can answer besides 400/401/413. */
  errors?: number[];
}

export const API_ROUTES: RouteDoc[] = [
  { method: 'post', path: '/v1/sessions', summary: 'Create a session', body: createSessionBody, success: [201, 'The session'] },
  {
    method: 'get',
    path: '/v1/sessions',
    summary: 'List sessions, newest first',
    query: listSessionsQuery,
    success: [200, '{ sessions }: each with `turnCount`, the turns from its root to its head'],
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}',
    summary: 'A session and its context usage',
    success: [200, 'The session with `usage`'],
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/tree',
    summary: 'The session and its forks, recursively',
    success: [200, '{ session, ownTurns, forks }'],
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/turns',
    summary: 'Append one turn or `{ turns: [...] }`, optionally guarded by `expectedHeadTurnId`',
    body: appendTurnsBody,
    success: [201, '{ turns, headTurnId }: the stored turns'],
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/compact',
    summary: 'Compact the session now',
    body: compactBody,
    success: [201, 'The compaction turn'],
    errors: [404, 409, 422, 502],
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/topics',
    summary: 'Union-find topics of the newest compaction',
    success: [200, '{ topics }'],
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/stream',
    summary: 'Server-sent events: `head` when the head moves, `compaction` when a compaction lands',
    success: [200, 'An event stream', 'text/event-stream'],
    errors: [404],
  },
  { method: 'get', path: '/v1/turns/{id}', summary: 'One turn', success: [200, 'The turn'], errors: [404] },
  {
    method: 'get',
    path: '/v1/turns/{id}/context',
    summary: 'The context at a turn, ready for the Messages API',
    query: contextQuery,
    success: [200, '{ system, messages, tokens, compactionTurnId, includedTurnIds, … }'],
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/turns/{id}/history',
    summary: 'Every turn from the root to this one, compactions included, one JSON object per line',
    success: [200, 'NDJSON, streamed', 'application/x-ndjson'],
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/turns/{id}/summarized',
    summary: 'The turns a compaction stands for',
    success: [200, '{ turns }'],
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/turns/{id}/fork',
    summary: 'Fork a new session from this turn',
    body: forkBody,
    success: [201, '{ session, baseCompactionId, forkPointSummarizedBy }'],
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/turns/{id}/topic',
    summary: 'The topic standing for a turn',
    query: sessionViewQuery,
    success: [200, '{ turnId, clusterId, compactionId }'],
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/topics/{id}/turns',
    summary: 'A topic’s member turns, oldest first',
    query: sessionViewQuery,
    success: [200, '{ turns }'],
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/search',
    summary:
      'Full-text search over every turn; summarized hits surface as their compaction with `via`. ' +
      'With `mode=semantic`: the turns whose stored vectors are nearest the query’s (session and limit only)',
    query: searchQuery,
    success: [
      200,
      '{ hits, nextCursor }; with mode=semantic { mode, model, hits: [{ turnId, sessionId, role, timestamp, similarity, snippet }], unembedded }',
    ],
    errors: [404, 502],
  },
  {
    method: 'post',
    path: '/v1/events',
    summary: 'Append one event or `{ events: [...] }`; re-sent events are not stored twice',
    body: appendEventsBody,
    success: [201, '{ events: [{ event, duplicate, conflict }] }: at least one event was stored'],
    alsoSuccess: [200, '{ events: [{ event, duplicate, conflict }] }: every event was already stored, nothing was written'],
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/events',
    summary: 'A channel’s events in order',
    query: eventsQuery,
    success: [200, '{ events, nextCursor }'],
  },
  {
    method: 'get',
    path: '/v1/events/verify',
    summary: 'Check the hash chain of every channel (or one)',
    query: verifyQuery,
    success: [200, '{ ok, checked, channels, firstBroken? }'],
  },
  { method: 'get', path: '/v1/events/{id}', summary: 'One event', success: [200, 'The event'], errors: [404] },
  { method: 'get', path: '/v1/openapi.json', summary: 'This document', success: [200, 'OpenAPI 3.1'] },
];

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request (INVALID_JSON, INVALID_INPUT, SEARCH_SYNTAX), or search by meaning on a server without an embedding model (EMBEDDER_NOT_CONFIGURED)',
  401: 'Missing or wrong bearer token',
  404: 'Unknown id (SESSION_NOT_FOUND, TURN_NOT_FOUND, EVENT_NOT_FOUND, CLUSTER_NOT_FOUND) or no such route (NOT_FOUND)',
  403: 'FORBIDDEN_HOST (no token and not a loopback Host) or FORBIDDEN_ORIGIN (a write from another site)',
  409: 'HEAD_CONFLICT: the head moved; the error carries `headTurnId`, Retry-After and Retry-After-Ms say when to retry',
  413: 'Body over the limit, or a turn over the session’s window (MESSAGE_TOO_LARGE)',
  415: 'UNSUPPORTED_MEDIA_TYPE: the body is not sent as application/json',
  422: 'Nothing to compact, or the compaction would not shrink the context',
  502: 'The summarizer (SUMMARIZER_FAILED) or the embedding endpoint (EMBEDDER_FAILED) failed; nothing was written',
};

/** What a 409 HEAD_CONFLICT asks its client to wait before retrying (head-contention.ts). */
const RETRY_HEADERS = {
  headers: {
    'Retry-After': { description: 'Whole seconds to wait (0 for the usual sub-second wait)', schema: { type: 'integer' } },
    'Retry-After-Ms': { description: 'Milliseconds to wait, jittered per response', schema: { type: 'integer' } },
  },
};

function schemaOf(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
}

function operation(route: RouteDoc): Record<string, unknown> {
  const [status, description, contentType = 'application/json'] = route.success;
  const parameters: unknown[] = [];
  if (route.path.includes('{id}')) parameters.push({ name: 'id', in: 'path', required: true, schema: { type: 'string' } });
  for (const [name, field] of Object.entries(route.query?.shape ?? {})) {
    parameters.push({
      name,
      in: 'query',
      required: !(field as z.ZodType).safeParse(undefined).success,
      schema: { type: 'string', ...choicesOf(field as z.ZodType) },
    });
  }
  const errorResponse = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  const responses: Record<string, unknown> = { [status]: { description, content: { [contentType]: {} } } };
  if (route.alsoSuccess) {
    const [otherStatus, otherDescription] = route.alsoSuccess;
    responses[otherStatus] = { description: otherDescription, content: { [contentType]: {} } };
  }
  // Every write is also guarded by origin and content type (access-guard.ts).
  const guarded = route.method === 'post' ? [403, 415] : [];
  for (const code of [400, 401, 413, ...guarded, ...(route.errors ?? [])])
    responses[code] = { description: STATUS_TEXT[code] ?? 'Error', ...errorResponse, ...(code === 409 ? RETRY_HEADERS : {}) };
  return {
    summary: route.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            // A body that may be left out (create, fork, compact) takes its defaults; a turn or an event may not.
            required: !route.body.safeParse(undefined).success,
            content: { 'application/json': { schema: schemaOf(route.body) } },
          },
        }
      : {}),
    responses,
  };
}

/** A query parameter's allowed values, when it has a fixed set (`mode`: words, semantic). */
function choicesOf(field: z.ZodType): { enum?: string[] } {
  const inner = field instanceof z.ZodOptional ? field.unwrap() : field;
  return inner instanceof z.ZodEnum ? { enum: inner.options.map(String) } : {};
}

let cached: Record<string, unknown> | null = null;

export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of API_ROUTES) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method] = operation(route);
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'nexus agent ledger',
      version: '1',
      description:
        'The agents ledger and events ledger over HTTP. Errors are `{ "error": { "code", "message" } }`. See docs/http-api.md.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string' }, message: { type: 'string' } },
            },
          },
        },
      },
    },
    security: [{ bearer: [] }, {}],
    paths,
  };
  return cached;
}
