// The probe over a real socket: a POST whose author, external id, channel, payload or turn
// content holds half of an emoji (a lone surrogate, sent as the JSON escape "\ud83d") or a NUL.
// Before, the same POST answered 201 and then 500, and the event stored broke its chain. Now it
// answers the same 400 each time, naming the field, and nothing is written.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../src/index.ts';
import { digest, type Fixture, openFixture, type Seeded, seed } from './server-fixture.ts';

let fixture: Fixture;
let seeded: Seeded;
let server: RunningHttpServer;

beforeAll(async () => {
  fixture = openFixture();
  seeded = await seed(fixture.ledger, fixture.events);
  server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
});
afterAll(async () => {
  await server?.close({ graceMs: 100 });
  await fixture?.cleanup();
});

/** POSTs `body` as written: the JSON escapes in it reach the server as sent. */
async function post(
  path: string,
  body: string,
): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
}

const EVENT_CASES: Array<{ name: string; body: string; field: string }> = [
  {
    name: 'an author',
    body: '{"channel":"chat","externalId":"u-1","author":"ann\\ud83d","payload":{"text":"hi"}}',
    field: 'author holds a lone surrogate (U+D83D) at index 3',
  },
  {
    name: 'an external id',
    body: '{"channel":"chat","externalId":"u-2\\ude00","payload":{"text":"hi"}}',
    field: 'externalId holds a lone surrogate (U+DE00) at index 3',
  },
  {
    name: 'a channel',
    body: '{"channel":"chat\\ud83d","externalId":"u-3","payload":{"text":"hi"}}',
    field: 'channel holds a lone surrogate (U+D83D) at index 4',
  },
  {
    name: 'a payload',
    body: '{"channel":"chat","externalId":"u-4","payload":{"text":"a\\u0000b"}}',
    field: 'payload.text holds a NUL (U+0000) at index 1',
  },
];

describe('unstorable text over HTTP', () => {
  for (const { name, body, field } of EVENT_CASES) {
    it(`answers the same 400 twice for half a character or a NUL in ${name}, and writes nothing`, async () => {
      const before = await digest(fixture.ledger, fixture.events, [seeded.channel, 'chat']);
      const first = await post('/v1/events', body);
      const second = await post('/v1/events', body);
      expect(first.status).toBe(400);
      expect(first.body.error?.code).toBe('INVALID_INPUT');
      expect(first.body.error?.message).toContain(field);
      expect(second).toEqual(first);
      expect(await digest(fixture.ledger, fixture.events, [seeded.channel, 'chat'])).toBe(before);
      expect(await (await fetch(`${server.url}/v1/events/verify`)).json()).toMatchObject({ ok: true });
    });
  }

  it('answers the same 400 twice for half a character in a turn, and writes nothing', async () => {
    const before = await digest(fixture.ledger, fixture.events, [seeded.channel]);
    const body = '{"role":"user","content":"the emoji was cut \\ud83d"}';
    const first = await post(`/v1/sessions/${seeded.flatSessionId}/turns`, body);
    const second = await post(`/v1/sessions/${seeded.flatSessionId}/turns`, body);
    expect(first.status).toBe(400);
    expect(first.body.error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(first.body.error?.message).toContain('content holds a lone surrogate (U+D83D) at index 18');
    expect(second).toEqual(first);
    expect(await digest(fixture.ledger, fixture.events, [seeded.channel])).toBe(before);
  });

  it('stores a whole emoji, combining and bidi marks as sent, and the re-delivery is a duplicate', async () => {
    const body =
      '{"channel":"chat","externalId":"whole-\\ud83d\\ude00","author":"e\\u0301\\u202e","payload":{"text":"\\u200fok"}}';
    const first = await post('/v1/events', body);
    const second = await post('/v1/events', body);
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ events: [{ duplicate: true, conflict: null }] });
    expect(first.body).toMatchObject({ events: [{ event: { externalId: 'whole-\u{1f600}', author: 'e\u0301\u202e' } }] });
    expect(await (await fetch(`${server.url}/v1/events/verify`)).json()).toMatchObject({ ok: true });
  });
});
