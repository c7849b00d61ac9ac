// /v1/search, /v1/events and unknown routes through the hono app against a real seeded SQLite
// ledger: search across compactions (via, raw, cursors, hostile text), events appended
// idempotently, listed and verified, and the 4xx of each kind of bad request.

import { describe, expect, it } from 'vitest';
import { jsonRequest, useSeededApp } from './server-fixture.ts';

const api = useSeededApp();

describe('search', () => {
  it('finds a summarized turn through its compaction (via), and the turn itself with raw', async () => {
    const resolved = await api.call('/v1/search?q=zebracorn');
    const summarized = (await api.fixture.ledger.getSummarizedTurns(api.seeded.flatCompactionId)).map((turn) => turn.id);
    expect(resolved.body.hits[0]).toMatchObject({ turnId: api.seeded.flatCompactionId, turnType: 'compaction' });
    expect(summarized).toContain(resolved.body.hits[0].via);
    const raw = await api.call(`/v1/search?q=zebracorn&raw=true&session=${api.seeded.flatSessionId}`);
    expect(raw.body.hits.map((candidate: { turnId: string }) => candidate.turnId)).toContain(api.seeded.summarizedTurnId);
  });

  it('pages with a cursor and refuses a forged one', async () => {
    const first = await api.call('/v1/search?q=postgres&raw=true&limit=2');
    expect(first.body.hits).toHaveLength(2);
    const second = await api.call(`/v1/search?q=postgres&raw=true&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.hits.map((hit: { turnId: string }) => hit.turnId)).not.toContain(first.body.hits[0].turnId);
    expect(await api.call('/v1/search?q=postgres&cursor=forged')).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
  });

  it('treats hostile text as words, refuses bad advanced syntax with 400, and needs q', async () => {
    expect((await api.call(`/v1/search?q=${encodeURIComponent('"AND OR NOT ( * ^')}`)).status).toBe(200);
    expect(await api.call(`/v1/search?q=${encodeURIComponent('"unclosed')}&advanced=true`)).toMatchObject({
      status: 400,
      body: { error: { code: 'SEARCH_SYNTAX' } },
    });
    expect(await api.call('/v1/search')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_INPUT' } } });
  });
});

describe('events', () => {
  it('appends one event and a batch idempotently, lists and verifies them', async () => {
    const one = await api.call(
      '/v1/events',
      jsonRequest('POST', { channel: 'ops', externalId: 'a', payload: { text: 'disk full' } }),
    );
    expect(one.status).toBe(201);
    expect(one.body.events[0]).toMatchObject({ duplicate: false, event: { channel: 'ops', seq: 1 } });
    const again = await api.call(
      '/v1/events',
      jsonRequest('POST', { channel: 'ops', externalId: 'a', payload: { text: 'disk full' } }),
    );
    expect(again.status).toBe(200);
    expect(again.body.events[0]).toMatchObject({ duplicate: true, event: { id: one.body.events[0].event.id } });
    const batch = await api.call(
      '/v1/events',
      jsonRequest('POST', {
        events: [
          { channel: 'ops', externalId: 'a', payload: 1 },
          { channel: 'ops', externalId: 'b', payload: 2, occurredAt: '2026-01-02T03:04:05Z' },
        ],
      }),
    );
    expect(batch.status).toBe(201);
    expect(batch.body.events.map((item: { duplicate: boolean }) => item.duplicate)).toEqual([true, false]);
    const listed = await api.call('/v1/events?channel=ops');
    expect(listed.body.events.map((event: { externalId: string }) => event.externalId)).toEqual(['a', 'b']);
    const after = await api.call('/v1/events?channel=ops&after=1');
    expect(after.body.events.map((event: { seq: number }) => event.seq)).toEqual([2]);
    // Every integer up to a query's maximum is accepted, however many digits it has.
    expect(await api.call('/v1/events?channel=ops&after=1000000000')).toMatchObject({ status: 200, body: { events: [] } });
    expect(await api.call('/v1/sessions?offset=1000000000')).toMatchObject({ status: 200, body: { sessions: [] } });
    expect(await api.call('/v1/sessions?offset=1000000001')).toMatchObject({ status: 400 });
    expect((await api.call('/v1/events/verify')).body).toMatchObject({ ok: true, checked: 3, channels: 2 });
    expect((await api.call(`/v1/events/${api.seeded.eventId}`)).body).toMatchObject({ id: api.seeded.eventId, author: 'ada' });
  });

  it('reports a re-delivery that differs from the stored event, keeping the stored one', async () => {
    const first = await api.call('/v1/events', jsonRequest('POST', { channel: 'ops', externalId: 'c', payload: { v: 1 } }));
    const changed = await api.call('/v1/events', jsonRequest('POST', { channel: 'ops', externalId: 'c', payload: { v: 2 } }));
    expect(changed.status).toBe(200);
    expect(changed.body.events[0]).toMatchObject({
      duplicate: true,
      conflict: { fields: ['payload'] },
      event: { id: first.body.events[0].event.id, payload: { v: 1 } },
    });
    expect(first.body.events[0].conflict).toBeNull();
  });

  it('refuses a bad event and a batch holding one, writing nothing', async () => {
    const before = await api.fixture.events.verify();
    expect(await api.call('/v1/events', jsonRequest('POST', { channel: 'ops', externalId: 'x' }))).toMatchObject({ status: 400 });
    expect(
      await api.call(
        '/v1/events',
        jsonRequest('POST', {
          events: [
            { channel: 'ops', externalId: 'y', payload: 1 },
            { channel: 'ops', externalId: 'z', payload: 1, occurredAt: 'not a time' },
          ],
        }),
      ),
    ).toMatchObject({ status: 400, body: { error: { code: 'INVALID_INPUT' } } });
    expect(await api.fixture.events.verify()).toEqual(before);
    expect(await api.call('/v1/events')).toMatchObject({ status: 400 });
    expect(await api.call('/v1/events/e_nope')).toMatchObject({ status: 404, body: { error: { code: 'EVENT_NOT_FOUND' } } });
  });
});

describe('everything else', () => {
  it('answers an unknown route with 404 and a known path with 405 and the methods it takes, in the error shape', async () => {
    expect(await api.call('/v1/nothing')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await api.call('/v1/sessions/s_1/nothing')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    const sessions = await api.call('/v1/sessions', { method: 'DELETE' });
    expect(sessions).toMatchObject({ status: 405, body: { error: { code: 'METHOD_NOT_ALLOWED' } } });
    expect(sessions.headers.get('allow')).toBe('POST, GET, HEAD');
    const turn = await api.call(`/v1/turns/${api.seeded.summarizedTurnId}`, { method: 'PUT' });
    expect(turn).toMatchObject({ status: 405, body: { error: { code: 'METHOD_NOT_ALLOWED' } } });
    expect(turn.headers.get('allow')).toBe('GET, HEAD');
    expect((await api.call('/v1/openapi.json', { method: 'POST' })).headers.get('allow')).toBe('GET, HEAD');
    expect((await api.call('/v1/openapiXjson', { method: 'POST' })).status).toBe(404);
    // Nothing was deleted or written.
    expect(await api.fixture.ledger.getTurn(api.seeded.summarizedTurnId)).toMatchObject({ id: api.seeded.summarizedTurnId });
  });
});
