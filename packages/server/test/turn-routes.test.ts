// The /v1/turns routes through the hono app against a real seeded SQLite ledger: a turn, its
// context, its history as NDJSON, what a compaction stands for, and a fork.

import { describe, expect, it } from 'vitest';
import { jsonRequest, useSeededApp } from './server-fixture.ts';

const api = useSeededApp();

describe('turns', () => {
  it('reads a turn, and a compaction with its numbers', async () => {
    expect((await api.call(`/v1/turns/${api.seeded.summarizedTurnId}`)).body).toMatchObject({
      id: api.seeded.summarizedTurnId,
      eventIds: [api.seeded.eventId],
    });
    const compaction = await api.call(`/v1/turns/${api.seeded.flatCompactionId}`);
    expect(compaction.body).toMatchObject({ turnType: 'compaction', strategy: 'flat' });
    expect(compaction.body.tokensAfter).toBeLessThan(compaction.body.tokensBefore);
    expect(await api.call('/v1/turns/t_nope')).toMatchObject({ status: 404, body: { error: { code: 'TURN_NOT_FOUND' } } });
  });

  it('builds the context at a turn, within a budget, as the ledger does', async () => {
    const head = (await api.fixture.ledger.getSession(api.seeded.flatSessionId)).headTurnId as string;
    const response = await api.call(`/v1/turns/${head}/context?budget=300&query=plan`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(
      JSON.parse(JSON.stringify(await api.fixture.ledger.buildContext(head, { budgetTokens: 300, query: 'plan' }))),
    );
    expect(response.body.compactionTurnId).toBe(api.seeded.flatCompactionId);
    expect(response.body.tokens).toBeLessThanOrEqual(300);
    expect(await api.call(`/v1/turns/${head}/context?budget=-5`)).toMatchObject({ status: 400 });
    expect(await api.call(`/v1/turns/${head}/context?budget=1e3`)).toMatchObject({ status: 400 });
  });

  it('refuses a budget too small for any valid context with a 400 naming the budget it needs', async () => {
    const head = (await api.fixture.ledger.getSession(api.seeded.flatSessionId)).headTurnId as string;
    for (const retrieval of ['', '&query=plan&retrieval=true']) {
      const refused = await api.call(`/v1/turns/${head}/context?budget=1${retrieval}`);
      expect(refused).toMatchObject({ status: 400, body: { error: { code: 'INVALID_INPUT' } } });
      const message = refused.body.error.message as string;
      const needs = Number(/needs (\d+) tokens/.exec(message)?.[1]);
      expect(message).toContain('budgetTokens 1 is too small for any valid context');
      expect(message).toContain(`Give budgetTokens of at least ${needs}.`);
      // That budget is enough: the newest user turn alone, never an empty list of messages.
      const enough = await api.call(`/v1/turns/${head}/context?budget=${needs}${retrieval}`);
      expect(enough.status).toBe(200);
      expect(enough.body.messages.length).toBeGreaterThan(0);
      expect(enough.body.messages[0].role).toBe('user');
      expect(enough.body.tokens).toBeLessThanOrEqual(needs);
    }
  });

  it('streams the whole history as NDJSON, root first, compactions included', async () => {
    const head = (await api.fixture.ledger.getSession(api.seeded.flatSessionId)).headTurnId as string;
    const response = await api.call(`/v1/turns/${head}/history`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = response.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const expected: unknown[] = [];
    for await (const turn of api.fixture.ledger.getFullHistory(head)) expected.push(JSON.parse(JSON.stringify(turn)));
    expect(lines).toEqual(expected);
    expect(lines.some((turn) => turn.turnType === 'compaction')).toBe(true);
    expect(await api.call('/v1/turns/t_nope/history')).toMatchObject({
      status: 404,
      body: { error: { code: 'TURN_NOT_FOUND' } },
    });
  });

  it('lists what a compaction stands for, and refuses a normal turn there', async () => {
    const response = await api.call(`/v1/turns/${api.seeded.flatCompactionId}/summarized`);
    expect(response.body.turns[0].id).toBe(api.seeded.summarizedTurnId);
    expect(await api.call(`/v1/turns/${api.seeded.summarizedTurnId}/summarized`)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
  });

  it('forks from a turn', async () => {
    const forked = await api.call(`/v1/turns/${api.seeded.summarizedTurnId}/fork`, jsonRequest('POST', { label: 'again' }));
    expect(forked.status).toBe(201);
    expect(forked.body.session).toMatchObject({
      label: 'again',
      headTurnId: api.seeded.summarizedTurnId,
      parentSessionId: api.seeded.flatSessionId,
    });
    expect(await api.call('/v1/turns/t_nope/fork', { method: 'POST' })).toMatchObject({ status: 404 });
  });
});
