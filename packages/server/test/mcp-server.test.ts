// The MCP server through the SDK's own Client over an in-memory transport, on a real seeded
// ledger: the four tools, what they return, and how they refuse bad ids and arguments.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../src/index.ts';
import { type Fixture, openFixture, type Seeded, seed } from './server-fixture.ts';

let fixture: Fixture;
let seeded: Seeded;
let client: Client;

beforeAll(async () => {
  fixture = openFixture();
  seeded = await seed(fixture.ledger, fixture.events);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer({ ledger: fixture.ledger }).connect(serverSide);
  client = new Client({ name: 'test', version: '0' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client.close();
  await fixture.cleanup();
});

async function callTool(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    // biome-ignore lint/suspicious/noExplicitAny: results are checked by shape
    structuredContent?: any;
    isError?: boolean;
  };
  return result;
}

describe('MCP tools', () => {
  it('lists four read-only tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['expand', 'get_context', 'list_sessions', 'search_history']);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
    const search = tools.find((tool) => tool.name === 'search_history');
    expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(['query', 'mode', 'session', 'raw', 'limit', 'cursor']);
  });

  it('search_history finds what a compaction dropped, via the compaction, and the raw turn with raw', async () => {
    const resolved = await callTool('search_history', { query: 'zebracorn' });
    expect(resolved.isError).toBeFalsy();
    const hit = resolved.structuredContent.hits[0];
    expect(hit).toMatchObject({ turnId: seeded.flatCompactionId, type: 'compaction', sessionId: seeded.flatSessionId });
    expect(hit.via).toMatch(/^t_/);
    expect(new Date(hit.time).toISOString()).toBe(hit.time);
    expect(hit.snippet).toMatch(/zebracorn/);
    // The text content is the same data, for clients that read only text.
    expect(JSON.parse(resolved.content[0]?.text ?? '')).toEqual(resolved.structuredContent);
    const raw = await callTool('search_history', { query: 'zebracorn', raw: true, session: seeded.flatSessionId, limit: 5 });
    expect(raw.structuredContent.hits.map((candidate: { turnId: string }) => candidate.turnId)).toContain(
      seeded.summarizedTurnId,
    );
  });

  it('expand turns a compaction into the turns it stands for, a topic into its members, a turn into itself', async () => {
    const compaction = await callTool('expand', { id: seeded.flatCompactionId });
    const expected = await fixture.ledger.getSummarizedTurns(seeded.flatCompactionId);
    expect(compaction.structuredContent).toMatchObject({ kind: 'compaction', total: expected.length, offset: 0 });
    expect(compaction.structuredContent.turns.map((turn: { id: string }) => turn.id)).toEqual(expected.map((turn) => turn.id));
    expect(compaction.structuredContent.turns[0].text).toMatch(/zebracorn/);

    const topic = await callTool('expand', { id: seeded.topicId });
    const members = await fixture.ledger.expandTopic(seeded.topicId);
    expect(topic.structuredContent.kind).toBe('topic');
    expect(topic.structuredContent.turns.map((turn: { id: string }) => turn.id)).toEqual(members.map((turn) => turn.id));

    const turn = await callTool('expand', { id: seeded.summarizedTurnId });
    expect(turn.structuredContent).toMatchObject({
      kind: 'turn',
      total: 1,
      turns: [{ id: seeded.summarizedTurnId, role: 'user' }],
    });

    const paged = await callTool('expand', { id: seeded.flatCompactionId, offset: 1, limit: 2 });
    expect(paged.structuredContent.turns.map((item: { id: string }) => item.id)).toEqual(
      expected.slice(1, 3).map((item) => item.id),
    );
    expect(paged.structuredContent.nextOffset).toBe(3);
  });

  it('expand cuts a long turn with a note, and gives all of it with maxChars', async () => {
    const session = await fixture.ledger.createSession();
    const long = await fixture.ledger.appendTurn(session.id, {
      role: 'user',
      content: `start ${'lorem ipsum '.repeat(1000)}end`,
    });
    const cut = await callTool('expand', { id: long.id });
    expect(cut.structuredContent.turns[0].text).toHaveLength(
      4000 + `… [${12010 - 4000} more characters: expand ${long.id} with a larger maxChars]`.length,
    );
    const whole = await callTool('expand', { id: long.id, maxChars: 20_000 });
    expect(whole.structuredContent.turns[0].text).toBe(`start ${'lorem ipsum '.repeat(1000)}end`);
  });

  it('get_context builds the context at a turn or a session head, within the budget', async () => {
    const head = (await fixture.ledger.getSession(seeded.flatSessionId)).headTurnId as string;
    const atTurn = await callTool('get_context', { turnId: head, budget: 400 });
    const built = await fixture.ledger.buildContext(head, { budgetTokens: 400 });
    expect(atTurn.structuredContent).toMatchObject({
      turnId: head,
      tokens: built.tokens,
      compactionTurnId: seeded.flatCompactionId,
    });
    expect(atTurn.structuredContent.tokens).toBeLessThanOrEqual(400);
    expect(atTurn.structuredContent.messages.length).toBe(built.messages.length);
    const atHead = await callTool('get_context', { session: seeded.flatSessionId });
    expect(atHead.structuredContent.turnId).toBe(head);
  });

  it('get_context with retrieve recalls the turns that answer the query, even on a flat session', async () => {
    const recalled = await callTool('get_context', {
      session: seeded.flatSessionId,
      query: 'What was the zebracorn plan?',
      retrieve: true,
      budget: 600,
    });
    expect(recalled.isError).toBeFalsy();
    expect(recalled.structuredContent.retrievedTurnIds).toContain(seeded.summarizedTurnId);
    const plain = await callTool('get_context', {
      session: seeded.flatSessionId,
      query: 'What was the zebracorn plan?',
      budget: 600,
    });
    expect(plain.structuredContent.retrievedTurnIds ?? []).toEqual([]);
    const noQuery = await callTool('get_context', { session: seeded.flatSessionId, retrieve: true });
    expect(noQuery.isError).toBe(true);
  });

  it('takes a session id where a turn id goes: its head', async () => {
    const head = (await fixture.ledger.getSession(seeded.flatSessionId)).headTurnId as string;
    const context = await callTool('get_context', { turnId: seeded.flatSessionId, budget: 400 });
    expect(context.structuredContent.turnId).toBe(head);
    const expanded = await callTool('expand', { id: seeded.flatSessionId });
    expect(expanded.structuredContent).toMatchObject({ id: head, kind: 'turn' });
  });

  it('search_history takes a question as a model phrases it: its content words, not "does" or "the"', async () => {
    const session = await fixture.ledger.createSession({ label: 'phrased' });
    const chatter = await fixture.ledger.appendTurn(session.id, {
      role: 'user',
      content: 'Does it work? It does, and so does the other one.',
    });
    const fact = await fixture.ledger.appendTurn(session.id, {
      role: 'assistant',
      content: 'The staging redis host is redis-quokka-7.staging.internal.',
    });
    const found = await callTool('search_history', {
      query: 'which redis host does staging use',
      session: session.id,
      raw: true,
    });
    const ids = found.structuredContent.hits.map((hit: { turnId: string }) => hit.turnId);
    expect(ids[0]).toBe(fact.id);
    expect(ids).not.toContain(chatter.id);
  });

  it('list_sessions lists every session, newest first', async () => {
    const listed = await callTool('list_sessions', {});
    expect(listed.structuredContent.sessions.map((session: { id: string }) => session.id)).toEqual(
      (await fixture.ledger.listSessions()).map((session) => session.id),
    );
    const fork = listed.structuredContent.sessions.find((session: { id: string }) => session.id === seeded.forkSessionId);
    expect(fork).toMatchObject({ parentSessionId: seeded.flatSessionId, forkedFromTurnId: seeded.summarizedTurnId });
  });

  it('answers unknown ids and bad arguments with an error result the model can read', async () => {
    const unknown = await callTool('expand', { id: 't_nope' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]?.text).toMatch(/^TURN_NOT_FOUND: /);
    // Said in the tools' terms, not the library's functions or the CLI's commands.
    expect(unknown.content[0]?.text).toContain('list_sessions');
    expect(unknown.content[0]?.text).not.toMatch(/nexus |listSessions\(\)/);
    const noTurn = await callTool('get_context', {});
    expect(noTurn.isError).toBe(true);
    expect(noTurn.content[0]?.text).toMatch(/turnId/);
    const badLimit = await callTool('search_history', { query: 'x', limit: 0 }).catch((error: Error) => ({
      isError: true,
      content: [{ type: 'text', text: error.message }],
    }));
    expect(badLimit.isError).toBe(true);
  });
});
