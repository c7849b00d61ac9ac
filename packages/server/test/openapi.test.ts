// The OpenAPI document and the app cannot drift: every /v1 route the app registers is in the
// document with its method, and every operation in the document is a route the app answers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../src/index.ts';
import { type Fixture, openFixture } from './server-fixture.ts';

let fixture: Fixture;
beforeAll(() => {
  fixture = openFixture();
});
afterAll(() => fixture.cleanup());

function appRoutes(): string[] {
  return fixture.app.routes
    .filter((route) => route.method === 'GET' || route.method === 'POST')
    .filter((route) => route.path.startsWith('/v1/'))
    .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
}

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document listing exactly the routes of the app', async () => {
    const response = await fixture.app.request('/v1/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    const registered = appRoutes();
    expect(registered.length).toBeGreaterThanOrEqual(20);
    expect(new Set(documented)).toEqual(new Set(registered));
    expect(documented).toHaveLength(API_ROUTES.length);
  });

  it('lists the issue’s paths, each with responses and an error schema', async () => {
    const document = (await (await fixture.app.request('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string }[] }>>;
    };
    for (const path of [
      '/v1/sessions',
      '/v1/sessions/{id}',
      '/v1/sessions/{id}/tree',
      '/v1/sessions/{id}/turns',
      '/v1/turns/{id}',
      '/v1/turns/{id}/context',
      '/v1/turns/{id}/history',
      '/v1/turns/{id}/fork',
      '/v1/sessions/{id}/compact',
      '/v1/sessions/{id}/topics',
      '/v1/topics/{id}/turns',
      '/v1/turns/{id}/topic',
      '/v1/search',
      '/v1/events',
      '/v1/events/verify',
      '/v1/sessions/{id}/stream',
    ]) {
      expect(document.paths[path], path).toBeDefined();
      for (const operation of Object.values(document.paths[path] ?? {})) expect(operation.responses['400']).toBeDefined();
    }
    const search = document.paths['/v1/search']?.get;
    expect(search?.parameters?.map((parameter) => parameter.name)).toEqual([
      'q',
      'mode',
      'raw',
      'session',
      'limit',
      'cursor',
      'advanced',
    ]);
    const append = document.paths['/v1/sessions/{id}/turns']?.post as unknown as {
      requestBody: { content: Record<string, { schema: { anyOf: unknown[] } }> };
    };
    expect(append.requestBody.content['application/json']?.schema.anyOf).toHaveLength(2);
  });

  it('marks a body required exactly where the route refuses a request without one', async () => {
    const document = (await (await fixture.app.request('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { requestBody?: { required: boolean }; responses: Record<string, unknown> }>>;
    };
    const seeded = await fixture.ledger.createSession();
    const turn = await fixture.ledger.appendTurn(seeded.id, { role: 'user', content: 'a turn to fork from' });
    for (const [path, operations] of Object.entries(document.paths)) {
      const post = operations.post;
      if (!post) continue;
      expect(post.requestBody, path).toBeDefined();
      expect(post.responses['415'], path).toBeDefined();
      const concrete = path.replace('{id}', path.startsWith('/v1/turns/') ? turn.id : seeded.id);
      const response = await fixture.app.request(concrete, { method: 'POST' });
      const refusedForNoBody = response.status === 400;
      expect(post.requestBody?.required, `${path} answered ${response.status} without a body`).toBe(refusedForNoBody);
    }
  });
});
