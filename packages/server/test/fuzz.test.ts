// Thousands of random and malformed requests: bad JSON, wrong types, huge bodies, unknown ids,
// hostile search text, path tricks. None may get a 5xx, and the malformed ones may not write: the
// digest of everything the public API can read is the same before and after.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument, startHttpServer } from '../src/index.ts';
import { type FuzzRequest, ROUTES, requestArbitrary, sendRaw } from './fuzz-requests.ts';
import { digest, type Fixture, openFixture, type Seeded, seed } from './server-fixture.ts';

const MAX_BODY = 64 * 1024;
let fixture: Fixture;
let seeded: Seeded;

beforeAll(async () => {
  fixture = openFixture({ maxBodyBytes: MAX_BODY });
  seeded = await seed(fixture.ledger, fixture.events);
});
afterAll(() => fixture.cleanup());

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

/** The `method route status` entries (as answered) that the OpenAPI document does not list for that route. */
function undocumented(answered: Set<string>): string[] {
  const paths = openApiDocument().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  return [...answered].filter((entry) => {
    const [method, route, status] = entry.split(' ') as [string, string, string];
    return paths[route]?.[method]?.responses[status] === undefined;
  });
}

describe('fuzz', () => {
  it('answers thousands of malformed requests in-process with a documented 4xx (or a read), never a 5xx, and writes nothing', async () => {
    const before = await digest(fixture.ledger, fixture.events, [seeded.channel]);
    const statuses = new Map<number, number>();
    const answered = new Set<string>();
    await fc.assert(
      fc.asyncProperty(requestArbitrary({ seeded, maxBody: MAX_BODY }), async (request) => {
        const { status, body } = await sendInProcess(request);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (request.route) answered.add(`${request.method.toLowerCase()} ${request.route} ${status}`);
        expect(status, `${request.method} ${request.path} → ${body.slice(0, 300)}`).toBeLessThan(500);
        if (status >= 400)
          expect(JSON.parse(body)).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
        // Path tricks never serve a file from outside the viewer folder.
        if (request.path.startsWith('/viewer/') || request.path === '/package.json')
          expect(body).not.toMatch(/"@agent-ledger\/server"|"dependencies"/);
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
    expect(undocumented(answered), 'statuses the routes answered that /v1/openapi.json does not list').toEqual([]);
  }, 120_000);

  it('answers random well-formed JSON bodies on every route without a 5xx, only with statuses the document lists', async () => {
    const scratch = openFixture({ maxBodyBytes: MAX_BODY });
    try {
      const scratchSeed = await seed(scratch.ledger, scratch.events);
      const ids = [scratchSeed.flatSessionId, scratchSeed.summarizedTurnId, scratchSeed.flatCompactionId, 's_nope'];
      const answered = new Set<string>();
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
            answered.add(`${method.toLowerCase()} ${template} ${response.status}`);
            await response.text();
          },
        ),
        { numRuns: 500 },
      );
      expect(undocumented(answered), 'statuses the routes answered that /v1/openapi.json does not list').toEqual([]);
    } finally {
      await scratch.cleanup();
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
        fc.asyncProperty(requestArbitrary({ seeded, maxBody: MAX_BODY }), async (request) => {
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
