// The requests the fuzz test sends: random and malformed ones (bad JSON, wrong types, bodies over
// the limit, unknown ids, hostile search text, path tricks) and well-formed ones the ledgers refuse,
// as fast-check arbitraries over a seeded ledger; and a raw node:http sender that leaves paths as
// they are. fuzz.test.ts sends them and checks the answers.

import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import type { Seeded } from './server-fixture.ts';

export interface FuzzRequest {
  method: string;
  path: string;
  body: string | undefined;
  contentType: string | undefined;
  /** The documented route this request is aimed at (`/v1/sessions/{id}/turns`), with its own method; absent for path tricks and other methods. */
  route?: string;
}

const HOSTILE_TEXT = [
  '"AND OR NOT ( * ^',
  'NEAR(a b, -1)',
  'content:*',
  '"',
  '*',
  '^',
  "'; DROP TABLE agent_turns; --",
  '\u0000',
  '%',
  '\uD800',
  'a'.repeat(3000),
  '../../etc/passwd',
  '{"$where":1}',
];

const PATH_TRICKS = [
  '/viewer/../package.json',
  '/viewer/%2e%2e/package.json',
  '/viewer/%2e%2e%2fpackage.json',
  '/viewer/..%2f..%2fpackage.json',
  '/viewer/.env',
  '/viewer/index.html%00.png',
  '/viewer/%252e%252e%252fpackage.json',
  '/viewer/',
  '/viewer/a/b.js',
  '/v1/sessions/..%2f..%2f',
  '/v1/turns/%2e%2e',
  '//v1//sessions',
  '/v1/sessions/%00/tree',
  '/v1/./sessions',
  '/v1/sessions/%E0%A4%A',
  '/src/index.ts',
  '/package.json',
];

/** Percent-encodes a path segment; a lone surrogate becomes the bytes of one, invalid UTF-8 for the server to refuse. */
function encodeSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

function idArbitrary(seeded: Seeded) {
  return fc.oneof(
    fc.constantFrom(
      seeded.flatSessionId,
      seeded.unionSessionId,
      seeded.summarizedTurnId,
      seeded.flatCompactionId,
      seeded.topicId,
      seeded.eventId,
      's_nope',
      't_nope',
      '',
    ),
    fc.string({ maxLength: 30 }).map(encodeSegment),
    fc.constantFrom(...HOSTILE_TEXT).map(encodeSegment),
  );
}

export const ROUTES: [method: string, template: string][] = [
  ['POST', '/v1/sessions'],
  ['GET', '/v1/sessions'],
  ['GET', '/v1/sessions/{id}'],
  ['GET', '/v1/sessions/{id}/tree'],
  ['POST', '/v1/sessions/{id}/turns'],
  ['POST', '/v1/sessions/{id}/compact'],
  ['GET', '/v1/sessions/{id}/topics'],
  ['GET', '/v1/turns/{id}'],
  ['GET', '/v1/turns/{id}/context'],
  ['GET', '/v1/turns/{id}/history'],
  ['GET', '/v1/turns/{id}/summarized'],
  ['POST', '/v1/turns/{id}/fork'],
  ['GET', '/v1/turns/{id}/topic'],
  ['GET', '/v1/topics/{id}/turns'],
  ['GET', '/v1/search'],
  ['POST', '/v1/events'],
  ['GET', '/v1/events'],
  ['GET', '/v1/events/verify'],
  ['GET', '/v1/events/{id}'],
];

const QUERY_KEYS = [
  'q',
  'raw',
  'session',
  'limit',
  'cursor',
  'budget',
  'query',
  'full',
  'retrieval',
  'channel',
  'after',
  'offset',
  'advanced',
];

function queryArbitrary(seeded: Seeded) {
  const value = fc.oneof(
    fc.constantFrom(...HOSTILE_TEXT),
    fc.string({ maxLength: 20 }),
    fc.integer({ min: -5, max: 10_000_000 }).map(String),
    fc.constantFrom('true', 'false', '1e3', '0x10', ' 5', '-1', 'NaN', seeded.flatSessionId, seeded.channel, 'zebracorn'),
  );
  return fc
    .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), value), { maxLength: 4 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`));
}

/** A body no write route can accept: each is caught by JSON parsing, the schemas or the ledger. */
function malformedBody(maxBody: number) {
  return fc.oneof(
    fc.constantFrom(
      '{',
      '{"role":',
      '[1,2',
      'nul',
      '{"a":1}}',
      '\u0000',
      '{"turns":[{"role":"user","content":',
      '{"label": undefined}',
    ),
    // Valid JSON of the wrong kind: every write body is an object with known fields.
    fc
      .oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.json(), { maxLength: 3 }))
      .map((value) => JSON.stringify(value)),
    // An object with a field no schema knows (the schemas are strict) and random others.
    fc
      .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
      .map((value) => JSON.stringify({ ...value, __fuzz: true })),
    // Wrong types for the fields that matter.
    fc
      .record({
        role: fc.oneof(fc.constant('system'), fc.integer(), fc.constant(null)),
        content: fc.oneof(
          fc.constant(''),
          fc.constant([]),
          fc.integer(),
          fc.constant([{ type: 'text', text: '' }]),
          fc.constant([{ type: 'image' }]),
        ),
        label: fc.integer(),
        settings: fc.oneof(fc.constant({ contextWindow: -1 }), fc.constant('big')),
        channel: fc.oneof(fc.constant(''), fc.integer()),
        full: fc.constant('yes'),
        instructions: fc.integer(),
        events: fc.constant([]),
        turns: fc.constant([]),
      })
      .map((value) => JSON.stringify(value)),
    // Over the body limit.
    fc.integer({ min: maxBody + 1, max: maxBody * 2 }).map((size) => `{"role":"user","content":"${'x'.repeat(size)}"}`),
  );
}

/**
 * Well-formed requests aimed at real sessions that the ledgers refuse: a stale head (409: the flat
 * compaction is no seeded session's head), an unknown cited event (404), a turn over every seeded
 * session's window (413), an event payload nested past the events ledger's limit (400). They reach
 * the ledgers' own checks, not only zod.
 */
function ledgerRefusal(seeded: Seeded) {
  return fc
    .record({
      target: fc.constantFrom(seeded.flatSessionId, seeded.unionSessionId, seeded.forkSessionId),
      body: fc.constantFrom(
        JSON.stringify({ role: 'user', content: 'late', expectedHeadTurnId: seeded.flatCompactionId }),
        JSON.stringify({
          turns: [
            { role: 'user', content: 'a' },
            { role: 'user', content: 'b', eventIds: ['e_nope'] },
          ],
        }),
        JSON.stringify({ role: 'user', content: 'word '.repeat(3000) }),
      ),
      event: fc.constant(
        JSON.stringify({ channel: 'chat', externalId: 'deep', payload: JSON.parse(`${'['.repeat(80)}${']'.repeat(80)}`) }),
      ),
      toEvents: fc.boolean(),
    })
    .map(({ target, body, event, toEvents }) => ({
      method: 'POST',
      path: toEvents ? '/v1/events' : `/v1/sessions/${target}/turns`,
      body: toEvents ? event : body,
      contentType: 'application/json',
      route: toEvents ? '/v1/events' : '/v1/sessions/{id}/turns',
    }));
}

export function requestArbitrary({ seeded, maxBody }: { seeded: Seeded; maxBody: number }): fc.Arbitrary<FuzzRequest> {
  const routed = fc.record({
    route: fc.constantFrom(...ROUTES),
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'GET', 'POST') },
    ),
    id: idArbitrary(seeded),
    query: queryArbitrary(seeded),
    body: malformedBody(maxBody),
    contentType: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
    ),
  });
  const tricks = fc.record({ path: fc.constantFrom(...PATH_TRICKS), method: fc.constantFrom('GET', 'POST') });
  return fc.oneof(
    {
      weight: 9,
      arbitrary: routed.map((r) => ({
        method: r.method ?? r.route[0],
        path: r.route[1].replace('{id}', r.id) + r.query,
        body: r.body,
        contentType: r.contentType,
        ...(r.method === null || r.method === r.route[0] ? { route: r.route[1] } : {}),
      })),
    },
    { weight: 1, arbitrary: ledgerRefusal(seeded) },
    {
      weight: 1,
      arbitrary: tricks.map((t) => ({
        method: t.method,
        path: t.path,
        body: t.method === 'POST' ? '{' : undefined,
        contentType: undefined,
      })),
    },
  );
}

/** node:http sends the path exactly as given: `..` and `%2e%2e` reach the server untouched. */
export function sendRaw(port: number, request: FuzzRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const withBody = request.method !== 'GET' && request.body !== undefined;
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.path,
        headers: request.contentType ? { 'content-type': request.contentType } : {},
      },
      (response) => {
        if (String(response.headers['content-type']).includes('text/event-stream')) {
          response.destroy();
          resolve({ status: response.statusCode ?? 0, body: '' });
          return;
        }
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', reject);
      },
    );
    // A body over the limit may be refused before it is all sent: the server closing early is fine.
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve({ status: 413, body: '' }) : reject(error),
    );
    if (withBody) outgoing.end(request.body);
    else outgoing.end();
  });
}
