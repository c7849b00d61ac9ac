// Thousands of random and malformed requests: bad JSON, wrong types, huge bodies, unknown ids,
// hostile search text, path tricks. None may get a 5xx, and the malformed ones may not write: the
// digest of everything the public API can read is the same before and after.

import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../src/index.ts';
import { digest, type Fixture, openFixture, type Seeded, seed } from './server-fixture.ts';

const MAX_BODY = 64 * 1024;
let fixture: Fixture;
let seeded: Seeded;

beforeAll(async () => {
  fixture = openFixture({ maxBodyBytes: MAX_BODY });
  seeded = await seed(fixture.ledger, fixture.events);
});
afterAll(() => fixture.cleanup());

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

function idArbitrary() {
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

const ROUTES: [method: string, template: string][] = [
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

function queryArbitrary() {
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
function malformedBody() {
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
    fc.integer({ min: MAX_BODY + 1, max: MAX_BODY * 2 }).map((size) => `{"role":"user","content":"${'x'.repeat(size)}"}`),
  );
}

/**
 * Well-formed requests aimed at real sessions that the ledgers refuse: a stale head (409: the flat
 * compaction is no seeded session's head), an unknown cited event (404), a turn over every seeded
 * session's window (413), an event payload nested past the events ledger's limit (400). They reach
 * the ledgers' own checks, not only zod.
 */
function ledgerRefusal() {
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
    }));
}

function requestArbitrary() {
  const routed = fc.record({
    route: fc.constantFrom(...ROUTES),
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'GET', 'POST') },
    ),
    id: idArbitrary(),
    query: queryArbitrary(),
    body: malformedBody(),
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
      })),
    },
    { weight: 1, arbitrary: ledgerRefusal() },
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

interface FuzzRequest {
  method: string;
  path: string;
  body: string | undefined;
  contentType: string | undefined;
}

async function sendInProcess(request: FuzzRequest): Promise<{ status: number; body: string }> {
  const withBody = request.method !== 'GET' && request.method !== 'HEAD';
  const response = await fixture.app.request(`http://localhost${request.path}`, {
    method: request.method,
    headers: request.contentType ? { 'content-type': request.contentType } : {},
    body: withBody ? request.body : undefined,
  });
  if (response.headers.get('content-type')?.includes('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, body: '' };
  }
  return { status: response.status, body: await response.text() };
}

describe('fuzz', () => {
  it('answers thousands of malformed requests in-process with a 4xx (or a read), never a 5xx, and writes nothing', async () => {
    const before = await digest(fixture.ledger, fixture.events, [seeded.channel]);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArbitrary(), async (request) => {
        const { status, body } = await sendInProcess(request);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect(status, `${request.method} ${request.path} → ${body.slice(0, 300)}`).toBeLessThan(500);
        if (status >= 400)
          expect(JSON.parse(body)).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
        // Path tricks never serve a file from outside the viewer folder.
        if (request.path.startsWith('/viewer/') || request.path === '/package.json')
          expect(body).not.toMatch(/"@nexus\/server"|"dependencies"/);
      }),
      { numRuns: 3000 },
    );
    // Reported, not asserted: the spread of answers this run produced.
    console.log(`fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([left], [right]) => left - right)))}`);
    expect(await digest(fixture.ledger, fixture.events, [seeded.channel])).toBe(before);
    // The mix reached the ledgers (404s, 409s, 200 reads), not only the JSON parser.
    expect(statuses.get(404)).toBeGreaterThan(50);
    expect(statuses.get(400)).toBeGreaterThan(50);
    expect(statuses.get(200)).toBeGreaterThan(50);
    expect(statuses.get(409)).toBeGreaterThan(0);
  }, 120_000);

  it('answers random well-formed JSON bodies on every route without a 5xx', async () => {
    const scratch = openFixture({ maxBodyBytes: MAX_BODY });
    try {
      const scratchSeed = await seed(scratch.ledger, scratch.events);
      const ids = [scratchSeed.flatSessionId, scratchSeed.summarizedTurnId, scratchSeed.flatCompactionId, 's_nope'];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ROUTES.filter(([method]) => method === 'POST')),
          fc.constantFrom(...ids),
          fc.json(),
          async ([method, template], id, body) => {
            const response = await scratch.app.request(`http://localhost${template.replace('{id}', id)}`, {
              method,
              headers: { 'content-type': 'application/json' },
              body,
            });
            expect(response.status, `${method} ${template} ${body.slice(0, 200)}`).toBeLessThan(500);
            await response.text();
          },
        ),
        { numRuns: 500 },
      );
    } finally {
      scratch.cleanup();
    }
  }, 60_000);

  it('answers a few hundred malformed requests over real HTTP (raw paths, no client normalisation) without a 5xx or a write', async () => {
    const before = await digest(fixture.ledger, fixture.events, [seeded.channel]);
    const server = await startHttpServer({
      ledger: fixture.ledger,
      events: fixture.events,
      port: 0,
      maxBodyBytes: MAX_BODY,
      logError: () => {},
    });
    const { port } = new URL(server.url);
    try {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(), async (request) => {
          const { status, body } = await sendRaw(Number(port), request);
          expect(status, `${request.method} ${request.path} → ${body.slice(0, 300)}`).toBeLessThan(500);
          if (request.path.startsWith('/viewer/')) expect(body).not.toMatch(/"dependencies"/);
        }),
        { numRuns: 300 },
      );
    } finally {
      await server.close();
    }
    expect(await digest(fixture.ledger, fixture.events, [seeded.channel])).toBe(before);
  }, 120_000);
});

/** node:http sends the path exactly as given: `..` and `%2e%2e` reach the server untouched. */
function sendRaw(port: number, request: FuzzRequest): Promise<{ status: number; body: string }> {
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
