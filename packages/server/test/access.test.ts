// Who may call: a token on every /v1 request when set (constant-time compare, 401 otherwise), the
// page itself without it; loopback Host names only without a token; no cross-site writes; and
// startHttpServer refuses a non-loopback address without a token.

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopbackHost, startHttpServer, tokensMatch } from '../src/index.ts';
import { type Fixture, jsonRequest, openFixture } from './server-fixture.ts';

let fixture: Fixture | undefined;
afterEach(() => fixture?.cleanup());

describe('bearer token', () => {
  it('needs the exact token on /v1, answering 401 in the error shape otherwise', async () => {
    fixture = openFixture({ token: 's3cret-token' });
    const { app } = fixture;
    for (const authorization of [
      undefined,
      'Bearer wrong',
      'Bearer s3cret-toke',
      'Bearer s3cret-token2',
      'Basic s3cret-token',
      's3cret-token',
    ]) {
      const response = await app.request('/v1/sessions', { headers: authorization ? { authorization } : {} });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/Bearer/);
      expect(await response.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    const ok = await app.request('/v1/sessions', { headers: { authorization: 'Bearer s3cret-token' } });
    expect(ok.status).toBe(200);
    // A refused write writes nothing.
    await app.request('/v1/sessions', jsonRequest('POST', {}, { authorization: 'Bearer nope' }));
    expect(await fixture.ledger.listSessions()).toEqual([]);
  });

  it('lets the viewer page load without the token, but not its data', async () => {
    fixture = openFixture({ token: 't' });
    expect((await fixture.app.request('/')).status).not.toBe(401);
    expect((await fixture.app.request('/v1/openapi.json')).status).toBe(401);
  });

  it('compares tokens correctly for any pair of strings', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (given, expected) => {
        expect(tokensMatch(given, expected)).toBe(given === expected);
      }),
    );
    expect(tokensMatch('é', 'é')).toBe(true);
  });
});

describe('without a token', () => {
  it('answers loopback Host names only (no DNS rebinding)', async () => {
    fixture = openFixture();
    for (const host of ['localhost:7700', '127.0.0.1:7700', '[::1]:7700', 'localhost']) {
      expect((await fixture.app.request('/v1/sessions', { headers: { host } })).status, host).toBe(200);
    }
    for (const host of ['evil.example:7700', '192.168.1.5', 'localhost.evil.example']) {
      const response = await fixture.app.request('/v1/sessions', { headers: { host } });
      expect(response.status, host).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: 'FORBIDDEN_HOST' } });
    }
  });

  it('refuses writes from another origin and bodies not sent as JSON', async () => {
    fixture = openFixture();
    const crossSite = await fixture.app.request(
      'http://localhost/v1/sessions',
      jsonRequest('POST', {}, { origin: 'https://evil.example', host: 'localhost' }),
    );
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } });
    const form = await fixture.app.request('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form.status).toBe(415);
    expect(await fixture.ledger.listSessions()).toEqual([]);
    // Bytes with no Content-Type (only a non-browser client sends them: no Origin either) are read as JSON.
    const untyped = await fixture.app.request('/v1/sessions', {
      method: 'POST',
      body: new TextEncoder().encode('{"label":"untyped"}'),
    });
    expect(untyped.status).toBe(201);
    expect(await untyped.json()).toMatchObject({ label: 'untyped' });
    const sameSite = await fixture.app.request(
      'http://localhost/v1/sessions',
      jsonRequest('POST', {}, { origin: 'http://localhost', host: 'localhost' }),
    );
    expect(sameSite.status).toBe(201);
  });

  it('knows loopback names', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', 'LOCALHOST'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', 'example.com', '::', '128.0.0.1'].some(isLoopbackHost)).toBe(false);
  });
});

describe('startHttpServer', () => {
  it('refuses to listen on a non-loopback address without a token', async () => {
    fixture = openFixture();
    await expect(
      startHttpServer({ ledger: fixture.ledger, events: fixture.events, host: '0.0.0.0', port: 0 }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/--token/),
    });
  });

  it('listens on 127.0.0.1 by default, a free port with 0, and closes', async () => {
    fixture = openFixture();
    const server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${server.url}/v1/sessions`);
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
    await expect(fetch(`${server.url}/v1/sessions`)).rejects.toThrow();
  });

  it('says so when the port is taken', async () => {
    fixture = openFixture();
    const first = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
    try {
      const port = Number(new URL(first.url).port);
      await expect(startHttpServer({ ledger: fixture.ledger, events: fixture.events, port })).rejects.toMatchObject({
        code: 'ADDRESS_IN_USE',
        message: expect.stringMatching(/--port/),
      });
    } finally {
      await first.close();
    }
  });

  it('with a token listens on any address and still asks for the token', async () => {
    fixture = openFixture();
    const server = await startHttpServer({
      ledger: fixture.ledger,
      events: fixture.events,
      host: '0.0.0.0',
      port: 0,
      token: 'tok',
    });
    try {
      const port = new URL(server.url).port;
      expect((await fetch(`http://127.0.0.1:${port}/v1/sessions`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/v1/sessions`, { headers: { authorization: 'Bearer tok' } })).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
  });
});
