// The /v1/sessions routes through the hono app against a real seeded SQLite ledger: create, list,
// read, tree, append turns (one, a batch, a stale head), compact, topics; each kind of bad request
// gets its 4xx in the one error shape and writes nothing.

import { describe, expect, it } from 'vitest';
import { jsonRequest, openFixture, useSeededApp } from './server-fixture.ts';

const api = useSeededApp();

describe('sessions', () => {
  it('creates a session with settings and a strategy, and reads it back with its usage', async () => {
    const created = await api.call(
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
    const read = await api.call(`/v1/sessions/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, usage: { contextTokens: 0 } });
  });

  it('creates a session from an empty body', async () => {
    const created = await api.call('/v1/sessions', { method: 'POST' });
    expect(created.status).toBe(201);
    expect(created.body.label).toBeNull();
  });

  it('lists sessions newest first and pages with limit and offset', async () => {
    const all = await api.call('/v1/sessions');
    expect(all.body.sessions.map((session: { id: string }) => session.id)).toEqual(
      (await api.fixture.ledger.listSessions()).map((session) => session.id),
    );
    const page = await api.call('/v1/sessions?limit=1&offset=1');
    expect(page.body.sessions).toHaveLength(1);
    expect(page.body.sessions[0].id).toBe(all.body.sessions[1].id);
  });

  it('lists each session with its turn count: the turns from its root to its head, none for an empty one', async () => {
    const empty = (await api.call('/v1/sessions', jsonRequest('POST', {}))).body;
    const listed: Array<{ id: string; headTurnId: string | null; turnCount: number }> = (await api.call('/v1/sessions')).body
      .sessions;
    expect(listed.find((session) => session.id === empty.id)?.turnCount).toBe(0);
    for (const session of listed.filter((each) => each.headTurnId !== null)) {
      let count = 0;
      for await (const _turn of api.fixture.ledger.getFullHistory(session.headTurnId as string)) count += 1;
      expect(session.turnCount, session.id).toBe(count);
    }
    // A fork counts the line it shows: the turns it inherits and its own.
    const fork = listed.find((session) => session.id === api.seeded.forkSessionId);
    const own = (await api.call(`/v1/sessions/${api.seeded.forkSessionId}/tree`)).body.ownTurns;
    expect(fork?.turnCount).toBeGreaterThan(own);
  });

  it('shows the fork tree', async () => {
    const tree = await api.call(`/v1/sessions/${api.seeded.flatSessionId}/tree`);
    expect(tree.status).toBe(200);
    expect(tree.body.session.id).toBe(api.seeded.flatSessionId);
    expect(tree.body.forks.map((fork: { session: { id: string } }) => fork.session.id)).toEqual([api.seeded.forkSessionId]);
  });

  it('refuses an unknown session, a bad setting and an unknown field', async () => {
    expect(await api.call('/v1/sessions/s_nope')).toMatchObject({ status: 404, body: { error: { code: 'SESSION_NOT_FOUND' } } });
    expect(await api.call('/v1/sessions', jsonRequest('POST', { settings: { contextWindow: -1 } }))).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
    expect(await api.call('/v1/sessions', jsonRequest('POST', { lable: 'typo' }))).toMatchObject({ status: 400 });
    expect(await api.call('/v1/sessions', jsonRequest('POST', { strategy: 'nope' }))).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
    expect(await api.call('/v1/sessions?limit=abc')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_INPUT' } } });
  });
});

describe('appending turns', () => {
  it('appends one turn and a batch, returning the stored turns with 201', async () => {
    const session = (await api.call('/v1/sessions', jsonRequest('POST', {}))).body;
    const one = await api.call(
      `/v1/sessions/${session.id}/turns`,
      jsonRequest('POST', { role: 'user', content: 'hello', expectedHeadTurnId: null }),
    );
    expect(one.status).toBe(201);
    expect(one.body.turns).toHaveLength(1);
    expect(one.body.turns[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'hello' }], depth: 0 });
    const batch = await api.call(
      `/v1/sessions/${session.id}/turns`,
      jsonRequest('POST', {
        expectedHeadTurnId: one.body.headTurnId,
        turns: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'lookup', input: { q: 'x' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'found' }] },
          { role: 'assistant', content: 'done', eventIds: [api.seeded.eventId], metadata: { author: 'bot' } },
        ],
      }),
    );
    expect(batch.status).toBe(201);
    expect(batch.body.turns.map((turn: { depth: number }) => turn.depth)).toEqual([1, 2, 3]);
    expect(batch.body.turns[2].eventIds).toEqual([api.seeded.eventId]);
    expect((await api.fixture.ledger.getSession(session.id)).headTurnId).toBe(batch.body.headTurnId);
  });

  it('answers a stale head with 409 and the current head, writing nothing', async () => {
    const head = (await api.fixture.ledger.getSession(api.seeded.flatSessionId)).headTurnId;
    const stale = await api.call(
      `/v1/sessions/${api.seeded.flatSessionId}/turns`,
      jsonRequest('POST', { role: 'user', content: 'late', expectedHeadTurnId: api.seeded.summarizedTurnId }),
    );
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: 'HEAD_CONFLICT',
      headTurnId: head,
      expectedHeadTurnId: api.seeded.summarizedTurnId,
    });
    expect((await api.fixture.ledger.getSession(api.seeded.flatSessionId)).headTurnId).toBe(head);
  });

  it('writes nothing of a batch with one bad turn', async () => {
    const head = (await api.fixture.ledger.getSession(api.seeded.flatSessionId)).headTurnId;
    const refused = await api.call(
      `/v1/sessions/${api.seeded.flatSessionId}/turns`,
      jsonRequest('POST', {
        turns: [
          { role: 'user', content: 'fine' },
          { role: 'user', content: [{ type: 'text', text: '' }] },
        ],
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('INVALID_INPUT');
    expect((await api.fixture.ledger.getSession(api.seeded.flatSessionId)).headTurnId).toBe(head);
  });

  it('maps the ledger’s refusals: unknown session 404, unknown event 404, a turn over the window 413', async () => {
    expect(await api.call('/v1/sessions/s_nope/turns', jsonRequest('POST', { role: 'user', content: 'x' }))).toMatchObject({
      status: 404,
      body: { error: { code: 'SESSION_NOT_FOUND' } },
    });
    expect(
      await api.call(
        `/v1/sessions/${api.seeded.flatSessionId}/turns`,
        jsonRequest('POST', { role: 'user', content: 'x', eventIds: ['e_nope'] }),
      ),
    ).toMatchObject({ status: 404, body: { error: { code: 'EVENT_NOT_FOUND' } } });
    const huge = 'word '.repeat(20_000);
    expect(
      await api.call(`/v1/sessions/${api.seeded.flatSessionId}/turns`, jsonRequest('POST', { role: 'user', content: huge })),
    ).toMatchObject({
      status: 413,
      body: { error: { code: 'MESSAGE_TOO_LARGE' } },
    });
  });

  it('refuses bad JSON, wrong types, a form body and a body over the limit', async () => {
    const url = `/v1/sessions/${api.seeded.flatSessionId}/turns`;
    expect(
      await api.call(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"role":' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_JSON' } },
    });
    const wrong = await api.call(url, jsonRequest('POST', { role: 'system', content: 7 }));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/body\.role/);
    expect(await api.call(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })).toMatchObject({
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
      await small.cleanup();
    }
  });
});

describe('compaction and topics', () => {
  it('compacts on request and says why when there is nothing to compact', async () => {
    const session = await api.fixture.ledger.createSession({
      settings: { contextWindow: 2000, reserveTokens: 200, keepRecentTokens: 100 },
    });
    expect(await api.call(`/v1/sessions/${session.id}/compact`, { method: 'POST' })).toMatchObject({
      status: 422,
      body: { error: { code: 'EMPTY_SESSION' } },
    });
    for (let index = 0; index < 30; index += 1)
      await api.fixture.ledger.appendTurn(session.id, {
        role: index % 2 ? 'assistant' : 'user',
        content: `turn number ${index} about the weather and the sea`,
      });
    const head = (await api.fixture.ledger.getSession(session.id)).headTurnId;
    expect(await api.call(`/v1/sessions/${session.id}/compact`, jsonRequest('POST', { keepFromTurnId: 't_nope' }))).toMatchObject(
      { status: 404, body: { error: { code: 'TURN_NOT_FOUND' } } },
    );
    expect((await api.fixture.ledger.getSession(session.id)).headTurnId).toBe(head);
    const compacted = await api.call(`/v1/sessions/${session.id}/compact`, jsonRequest('POST', { instructions: 'keep the sea' }));
    expect(compacted.status).toBe(201);
    expect(compacted.body).toMatchObject({ turnType: 'compaction', trigger: 'manual' });
    expect((await api.fixture.ledger.getSession(session.id)).headTurnId).toBe(compacted.body.id);
  });

  it('lists topics, expands one, and finds the topic of a turn', async () => {
    const topics = await api.call(`/v1/sessions/${api.seeded.unionSessionId}/topics`);
    expect(topics.body.topics.length).toBeGreaterThan(0);
    expect(topics.body.topics[0].compactionId).toBe(api.seeded.unionCompactionId);
    const members = await api.call(`/v1/topics/${api.seeded.topicId}/turns`);
    expect(members.status).toBe(200);
    expect(members.body.turns.length).toBe(topics.body.topics[0].members);
    const ofTurn = await api.call(`/v1/turns/${members.body.turns[0].id}/topic`);
    expect(ofTurn.body).toEqual({
      turnId: members.body.turns[0].id,
      clusterId: api.seeded.topicId,
      compactionId: api.seeded.unionCompactionId,
    });
    expect((await api.call(`/v1/sessions/${api.seeded.flatSessionId}/topics`)).body.topics).toEqual([]);
    expect(await api.call('/v1/topics/t_nope/turns')).toMatchObject({
      status: 404,
      body: { error: { code: 'CLUSTER_NOT_FOUND' } },
    });
  });
});
