// Every /v1 route through the hono app against a real seeded SQLite ledger: the happy path returns
// what the ledger holds, and each kind of bad request gets its 4xx in the one error shape.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Fixture, jsonRequest, openFixture, type Seeded, seed } from './server-fixture.ts';

let fixture: Fixture;
let seeded: Seeded;

beforeEach(async () => {
  fixture = openFixture();
  seeded = await seed(fixture.ledger, fixture.events);
});
afterEach(() => fixture.cleanup());

async function call(path: string, init?: RequestInit) {
  const response = await fixture.app.request(path, init);
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: responses are checked by shape with toMatchObject
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body, text, headers: response.headers };
}

describe('sessions', () => {
  it('creates a session with settings and a strategy, and reads it back with its usage', async () => {
    const created = await call(
      '/v1/sessions',
      jsonRequest('POST', {
        label: 'api',
        settings: { contextWindow: 5000, reserveTokens: 500, keepRecentTokens: 1000 },
        strategy: 'union-find',
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ label: 'api', headTurnId: null, compactionStrategy: 'union-find' });
    expect(created.body.settings.contextWindow).toBe(5000);
    const read = await call(`/v1/sessions/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, usage: { contextTokens: 0 } });
  });

  it('creates a session from an empty body', async () => {
    const created = await call('/v1/sessions', { method: 'POST' });
    expect(created.status).toBe(201);
    expect(created.body.label).toBeNull();
  });

  it('lists sessions newest first and pages with limit and offset', async () => {
    const all = await call('/v1/sessions');
    expect(all.body.sessions.map((session: { id: string }) => session.id)).toEqual(
      (await fixture.ledger.listSessions()).map((session) => session.id),
    );
    const page = await call('/v1/sessions?limit=1&offset=1');
    expect(page.body.sessions).toHaveLength(1);
    expect(page.body.sessions[0].id).toBe(all.body.sessions[1].id);
  });

  it('shows the fork tree', async () => {
    const tree = await call(`/v1/sessions/${seeded.flatSessionId}/tree`);
    expect(tree.status).toBe(200);
    expect(tree.body.session.id).toBe(seeded.flatSessionId);
    expect(tree.body.forks.map((fork: { session: { id: string } }) => fork.session.id)).toEqual([seeded.forkSessionId]);
  });

  it('refuses an unknown session, a bad setting and an unknown field', async () => {
    expect(await call('/v1/sessions/s_nope')).toMatchObject({ status: 404, body: { error: { code: 'SESSION_NOT_FOUND' } } });
    expect(await call('/v1/sessions', jsonRequest('POST', { settings: { contextWindow: -1 } }))).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
    expect(await call('/v1/sessions', jsonRequest('POST', { lable: 'typo' }))).toMatchObject({ status: 400 });
    expect(await call('/v1/sessions', jsonRequest('POST', { strategy: 'nope' }))).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
    expect(await call('/v1/sessions?limit=abc')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_INPUT' } } });
  });
});

describe('appending turns', () => {
  it('appends one turn and a batch, returning the stored turns with 201', async () => {
    const session = (await call('/v1/sessions', jsonRequest('POST', {}))).body;
    const one = await call(
      `/v1/sessions/${session.id}/turns`,
      jsonRequest('POST', { role: 'user', content: 'hello', expectedHeadTurnId: null }),
    );
    expect(one.status).toBe(201);
    expect(one.body.turns).toHaveLength(1);
    expect(one.body.turns[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'hello' }], depth: 0 });
    const batch = await call(
      `/v1/sessions/${session.id}/turns`,
      jsonRequest('POST', {
        expectedHeadTurnId: one.body.headTurnId,
        turns: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'lookup', input: { q: 'x' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'found' }] },
          { role: 'assistant', content: 'done', eventIds: [seeded.eventId], metadata: { author: 'bot' } },
        ],
      }),
    );
    expect(batch.status).toBe(201);
    expect(batch.body.turns.map((turn: { depth: number }) => turn.depth)).toEqual([1, 2, 3]);
    expect(batch.body.turns[2].eventIds).toEqual([seeded.eventId]);
    expect((await fixture.ledger.getSession(session.id)).headTurnId).toBe(batch.body.headTurnId);
  });

  it('answers a stale head with 409 and the current head, writing nothing', async () => {
    const head = (await fixture.ledger.getSession(seeded.flatSessionId)).headTurnId;
    const stale = await call(
      `/v1/sessions/${seeded.flatSessionId}/turns`,
      jsonRequest('POST', { role: 'user', content: 'late', expectedHeadTurnId: seeded.summarizedTurnId }),
    );
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: 'HEAD_CONFLICT',
      headTurnId: head,
      expectedHeadTurnId: seeded.summarizedTurnId,
    });
    expect((await fixture.ledger.getSession(seeded.flatSessionId)).headTurnId).toBe(head);
  });

  it('writes nothing of a batch with one bad turn', async () => {
    const head = (await fixture.ledger.getSession(seeded.flatSessionId)).headTurnId;
    const refused = await call(
      `/v1/sessions/${seeded.flatSessionId}/turns`,
      jsonRequest('POST', {
        turns: [
          { role: 'user', content: 'fine' },
          { role: 'user', content: [{ type: 'text', text: '' }] },
        ],
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('INVALID_INPUT');
    expect((await fixture.ledger.getSession(seeded.flatSessionId)).headTurnId).toBe(head);
  });

  it('maps the ledger’s refusals: unknown session 404, unknown event 404, a turn over the window 413', async () => {
    expect(await call('/v1/sessions/s_nope/turns', jsonRequest('POST', { role: 'user', content: 'x' }))).toMatchObject({
      status: 404,
      body: { error: { code: 'SESSION_NOT_FOUND' } },
    });
    expect(
      await call(
        `/v1/sessions/${seeded.flatSessionId}/turns`,
        jsonRequest('POST', { role: 'user', content: 'x', eventIds: ['e_nope'] }),
      ),
    ).toMatchObject({ status: 404, body: { error: { code: 'EVENT_NOT_FOUND' } } });
    const huge = 'word '.repeat(20_000);
    expect(
      await call(`/v1/sessions/${seeded.flatSessionId}/turns`, jsonRequest('POST', { role: 'user', content: huge })),
    ).toMatchObject({
      status: 413,
      body: { error: { code: 'MESSAGE_TOO_LARGE' } },
    });
  });

  it('refuses bad JSON, wrong types, a form body and a body over the limit', async () => {
    const url = `/v1/sessions/${seeded.flatSessionId}/turns`;
    expect(await call(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"role":' })).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_JSON' } },
    });
    const wrong = await call(url, jsonRequest('POST', { role: 'system', content: 7 }));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/body\.role/);
    expect(await call(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })).toMatchObject({
      status: 415,
      body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
    });
    const small = openFixture({ maxBodyBytes: 1000 });
    try {
      const session = await small.ledger.createSession();
      const response = await small.app.request(
        `/v1/sessions/${session.id}/turns`,
        jsonRequest('POST', { role: 'user', content: 'x'.repeat(2000) }),
      );
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ error: { code: 'BODY_TOO_LARGE' } });
    } finally {
      small.cleanup();
    }
  });
});

describe('turns', () => {
  it('reads a turn, and a compaction with its numbers', async () => {
    expect((await call(`/v1/turns/${seeded.summarizedTurnId}`)).body).toMatchObject({
      id: seeded.summarizedTurnId,
      eventIds: [seeded.eventId],
    });
    const compaction = await call(`/v1/turns/${seeded.flatCompactionId}`);
    expect(compaction.body).toMatchObject({ turnType: 'compaction', strategy: 'flat' });
    expect(compaction.body.tokensAfter).toBeLessThan(compaction.body.tokensBefore);
    expect(await call('/v1/turns/t_nope')).toMatchObject({ status: 404, body: { error: { code: 'TURN_NOT_FOUND' } } });
  });

  it('builds the context at a turn, within a budget, as the ledger does', async () => {
    const head = (await fixture.ledger.getSession(seeded.flatSessionId)).headTurnId as string;
    const response = await call(`/v1/turns/${head}/context?budget=300&query=plan`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(
      JSON.parse(JSON.stringify(await fixture.ledger.buildContext(head, { budgetTokens: 300, query: 'plan' }))),
    );
    expect(response.body.compactionTurnId).toBe(seeded.flatCompactionId);
    expect(response.body.tokens).toBeLessThanOrEqual(300);
    expect(await call(`/v1/turns/${head}/context?budget=-5`)).toMatchObject({ status: 400 });
    expect(await call(`/v1/turns/${head}/context?budget=1e3`)).toMatchObject({ status: 400 });
  });

  it('streams the whole history as NDJSON, root first, compactions included', async () => {
    const head = (await fixture.ledger.getSession(seeded.flatSessionId)).headTurnId as string;
    const response = await call(`/v1/turns/${head}/history`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = response.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const expected: unknown[] = [];
    for await (const turn of fixture.ledger.getFullHistory(head)) expected.push(JSON.parse(JSON.stringify(turn)));
    expect(lines).toEqual(expected);
    expect(lines.some((turn) => turn.turnType === 'compaction')).toBe(true);
    expect(await call('/v1/turns/t_nope/history')).toMatchObject({ status: 404, body: { error: { code: 'TURN_NOT_FOUND' } } });
  });

  it('lists what a compaction stands for, and refuses a normal turn there', async () => {
    const response = await call(`/v1/turns/${seeded.flatCompactionId}/summarized`);
    expect(response.body.turns[0].id).toBe(seeded.summarizedTurnId);
    expect(await call(`/v1/turns/${seeded.summarizedTurnId}/summarized`)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
  });

  it('forks from a turn', async () => {
    const forked = await call(`/v1/turns/${seeded.summarizedTurnId}/fork`, jsonRequest('POST', { label: 'again' }));
    expect(forked.status).toBe(201);
    expect(forked.body.session).toMatchObject({
      label: 'again',
      headTurnId: seeded.summarizedTurnId,
      parentSessionId: seeded.flatSessionId,
    });
    expect(await call('/v1/turns/t_nope/fork', { method: 'POST' })).toMatchObject({ status: 404 });
  });
});

describe('compaction and topics', () => {
  it('compacts on request and says why when there is nothing to compact', async () => {
    const session = await fixture.ledger.createSession({
      settings: { contextWindow: 2000, reserveTokens: 200, keepRecentTokens: 100 },
    });
    expect(await call(`/v1/sessions/${session.id}/compact`, { method: 'POST' })).toMatchObject({
      status: 422,
      body: { error: { code: 'EMPTY_SESSION' } },
    });
    for (let index = 0; index < 30; index += 1)
      await fixture.ledger.appendTurn(session.id, {
        role: index % 2 ? 'assistant' : 'user',
        content: `turn number ${index} about the weather and the sea`,
      });
    const compacted = await call(`/v1/sessions/${session.id}/compact`, jsonRequest('POST', { instructions: 'keep the sea' }));
    expect(compacted.status).toBe(201);
    expect(compacted.body).toMatchObject({ turnType: 'compaction', trigger: 'manual' });
    expect((await fixture.ledger.getSession(session.id)).headTurnId).toBe(compacted.body.id);
  });

  it('lists topics, expands one, and finds the topic of a turn', async () => {
    const topics = await call(`/v1/sessions/${seeded.unionSessionId}/topics`);
    expect(topics.body.topics.length).toBeGreaterThan(0);
    expect(topics.body.topics[0].compactionId).toBe(seeded.unionCompactionId);
    const members = await call(`/v1/topics/${seeded.topicId}/turns`);
    expect(members.status).toBe(200);
    expect(members.body.turns.length).toBe(topics.body.topics[0].members);
    const ofTurn = await call(`/v1/turns/${members.body.turns[0].id}/topic`);
    expect(ofTurn.body).toEqual({
      turnId: members.body.turns[0].id,
      clusterId: seeded.topicId,
      compactionId: seeded.unionCompactionId,
    });
    expect((await call(`/v1/sessions/${seeded.flatSessionId}/topics`)).body.topics).toEqual([]);
    expect(await call('/v1/topics/t_nope/turns')).toMatchObject({ status: 404, body: { error: { code: 'CLUSTER_NOT_FOUND' } } });
  });
});

describe('search', () => {
  it('finds a summarized turn through its compaction (via), and the turn itself with raw', async () => {
    const resolved = await call('/v1/search?q=zebracorn');
    const summarized = (await fixture.ledger.getSummarizedTurns(seeded.flatCompactionId)).map((turn) => turn.id);
    expect(resolved.body.hits[0]).toMatchObject({ turnId: seeded.flatCompactionId, turnType: 'compaction' });
    expect(summarized).toContain(resolved.body.hits[0].via);
    const raw = await call(`/v1/search?q=zebracorn&raw=true&session=${seeded.flatSessionId}`);
    expect(raw.body.hits.map((candidate: { turnId: string }) => candidate.turnId)).toContain(seeded.summarizedTurnId);
  });

  it('pages with a cursor and refuses a forged one', async () => {
    const first = await call('/v1/search?q=postgres&raw=true&limit=2');
    expect(first.body.hits).toHaveLength(2);
    const second = await call(`/v1/search?q=postgres&raw=true&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.hits.map((hit: { turnId: string }) => hit.turnId)).not.toContain(first.body.hits[0].turnId);
    expect(await call('/v1/search?q=postgres&cursor=forged')).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
  });

  it('treats hostile text as words, refuses bad advanced syntax with 400, and needs q', async () => {
    expect((await call(`/v1/search?q=${encodeURIComponent('"AND OR NOT ( * ^')}`)).status).toBe(200);
    expect(await call(`/v1/search?q=${encodeURIComponent('"unclosed')}&advanced=true`)).toMatchObject({
      status: 400,
      body: { error: { code: 'SEARCH_SYNTAX' } },
    });
    expect(await call('/v1/search')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_INPUT' } } });
  });
});

describe('events', () => {
  it('appends one event and a batch idempotently, lists and verifies them', async () => {
    const one = await call(
      '/v1/events',
      jsonRequest('POST', { channel: 'ops', externalId: 'a', payload: { text: 'disk full' } }),
    );
    expect(one.status).toBe(201);
    expect(one.body.events[0]).toMatchObject({ duplicate: false, event: { channel: 'ops', seq: 1 } });
    const again = await call(
      '/v1/events',
      jsonRequest('POST', { channel: 'ops', externalId: 'a', payload: { text: 'disk full' } }),
    );
    expect(again.status).toBe(200);
    expect(again.body.events[0]).toMatchObject({ duplicate: true, event: { id: one.body.events[0].event.id } });
    const batch = await call(
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
    const listed = await call('/v1/events?channel=ops');
    expect(listed.body.events.map((event: { externalId: string }) => event.externalId)).toEqual(['a', 'b']);
    const after = await call('/v1/events?channel=ops&after=1');
    expect(after.body.events.map((event: { seq: number }) => event.seq)).toEqual([2]);
    // Every integer up to a query's maximum is accepted, however many digits it has.
    expect(await call('/v1/events?channel=ops&after=1000000000')).toMatchObject({ status: 200, body: { events: [] } });
    expect(await call('/v1/sessions?offset=1000000000')).toMatchObject({ status: 200, body: { sessions: [] } });
    expect(await call('/v1/sessions?offset=1000000001')).toMatchObject({ status: 400 });
    expect((await call('/v1/events/verify')).body).toMatchObject({ ok: true, checked: 3, channels: 2 });
    expect((await call(`/v1/events/${seeded.eventId}`)).body).toMatchObject({ id: seeded.eventId, author: 'ada' });
  });

  it('refuses a bad event and a batch holding one, writing nothing', async () => {
    const before = await fixture.events.verify();
    expect(await call('/v1/events', jsonRequest('POST', { channel: 'ops', externalId: 'x' }))).toMatchObject({ status: 400 });
    expect(
      await call(
        '/v1/events',
        jsonRequest('POST', {
          events: [
            { channel: 'ops', externalId: 'y', payload: 1 },
            { channel: 'ops', externalId: 'z', payload: 1, occurredAt: 'not a time' },
          ],
        }),
      ),
    ).toMatchObject({ status: 400, body: { error: { code: 'INVALID_INPUT' } } });
    expect(await fixture.events.verify()).toEqual(before);
    expect(await call('/v1/events')).toMatchObject({ status: 400 });
    expect(await call('/v1/events/e_nope')).toMatchObject({ status: 404, body: { error: { code: 'EVENT_NOT_FOUND' } } });
  });
});

describe('everything else', () => {
  it('answers an unknown route and an unknown method with 404 in the error shape', async () => {
    expect(await call('/v1/nothing')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await call('/v1/sessions', { method: 'DELETE' })).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
  });
});
