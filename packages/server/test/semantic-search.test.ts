// Search by meaning over HTTP (GET /v1/search?mode=semantic through a real server on loopback) and
// MCP (search_history mode "semantic" through the SDK's own client), on a real SQLite ledger whose
// vectors were stored by embedMissing: nearest first, scoped by session and limit like word search,
// and refused clearly — never a 500 — when the server has no embedder or the endpoint fails.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import { storeOf } from '@agent-ledger/agents-ledger/testing';
import { type Embedder, LedgerError } from '@agent-ledger/core';
import { createEventsLedger } from '@agent-ledger/events-ledger';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer, type HttpServerOptions, type RunningHttpServer, startHttpServer } from '../src/index.ts';
import { conceptEmbedder } from './concept-embeddings.ts';

const ADVICE = 'Set $NEXUS_EMBEDDINGS_URL and $NEXUS_EMBEDDINGS_MODEL and start the server again.';

let folder: string;
let dbPath: string;
let ledger: AgentsLedger;
const turns: Record<string, string> = {};
const sessions: Record<string, string> = {};
const opened: AgentsLedger[] = [];
const servers: RunningHttpServer[] = [];

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'nexus-semantic-'));
  dbPath = path.join(folder, 'ledger.db');
  ledger = openAgentsLedger(dbPath, { embedder: conceptEmbedder });
  const pets = await ledger.createSession({ label: 'pets' });
  const work = await ledger.createSession({ label: 'work' });
  sessions.pets = pets.id;
  sessions.work = work.id;
  for (const [name, sessionId, content] of [
    ['beagle', pets.id, 'my beagle snores at night'],
    ['coffee', pets.id, 'the coffee machine broke again'],
    ['build', work.id, 'the build uses esbuild to compile'],
    ['adopted', work.id, 'we adopted two dogs last week'],
  ] as const) {
    turns[name] = (await ledger.appendTurn(sessionId, { role: 'user', content })).id;
  }
  await ledger.embedMissing();
  // One turn with no vector yet: counted, never found.
  turns.late = (await ledger.appendTurn(pets.id, { role: 'assistant', content: 'walk him twice a day' })).id;
});

afterAll(async () => {
  for (const server of servers) await server.close();
  for (const each of opened) await each.close();
  await ledger.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A server on 127.0.0.1 over the ledger file, its ledger opened with `embedder` (or none). */
async function serve(embedder: Embedder | undefined, options: Partial<HttpServerOptions> = {}): Promise<string> {
  const served = openAgentsLedger(dbPath, embedder ? { embedder } : {});
  opened.push(served);
  const server = await startHttpServer({
    ledger: served,
    events: createEventsLedger({ store: storeOf(served) }),
    port: 0,
    logError: () => {},
    ...options,
  });
  servers.push(server);
  return server.url;
}

// biome-ignore lint/suspicious/noExplicitAny: answers are checked by shape
async function get(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

describe('GET /v1/search?mode=semantic', () => {
  it('ranks by meaning what words cannot find, across sessions or in one, within the limit', async () => {
    const url = await serve(conceptEmbedder);
    expect((await get(`${url}/v1/search?q=puppy&raw=true`)).body.hits).toEqual([]);
    const all = await get(`${url}/v1/search?q=puppy&mode=semantic`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ mode: 'semantic', model: 'concepts', unembedded: 1 });
    expect(
      all.body.hits
        .slice(0, 2)
        .map((hit: { turnId: string }) => hit.turnId)
        .sort(),
    ).toEqual([turns.beagle, turns.adopted].sort());
    expect(all.body.hits[0]).toMatchObject({ role: 'user', snippet: expect.stringMatching(/beagle|dogs/) });
    expect(all.body.hits[0].similarity).toBeGreaterThan(0.99);
    expect(all.body.hits.map((hit: { turnId: string }) => hit.turnId)).not.toContain(turns.late);

    const pets = await get(`${url}/v1/search?q=puppy&mode=semantic&session=${sessions.pets}&limit=1`);
    expect(pets.body.hits.map((hit: { turnId: string }) => hit.turnId)).toEqual([turns.beagle]);
    const work = await get(
      `${url}/v1/search?q=${encodeURIComponent('compile the build')}&mode=semantic&session=${sessions.work}`,
    );
    expect(work.body.hits[0].turnId).toBe(turns.build);
    expect(work.body.hits.map((hit: { sessionId: string }) => hit.sessionId)).toEqual([sessions.work, sessions.work]);
  });

  it('refuses the options of word search rather than ignoring them, and an unknown mode', async () => {
    const url = await serve(conceptEmbedder);
    for (const [name, value] of [
      ['raw', 'true'],
      ['cursor', 'abc'],
      ['advanced', 'true'],
    ]) {
      const refused = await get(`${url}/v1/search?q=puppy&mode=semantic&${name}=${value}`);
      expect(refused.status, name).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(`not ${name}`) });
    }
    expect((await get(`${url}/v1/search?q=puppy&mode=vectors`)).body.error.code).toBe('INVALID_INPUT');
  });

  it('without an embedder: 400 EMBEDDER_NOT_CONFIGURED with the advice the server was given, else the ledger’s own 400', async () => {
    const advised = await get(`${await serve(undefined, { noEmbedderAdvice: ADVICE })}/v1/search?q=puppy&mode=semantic`);
    expect(advised).toEqual({ status: 400, body: { error: { code: 'EMBEDDER_NOT_CONFIGURED', message: ADVICE } } });
    const plain = await get(`${await serve(undefined)}/v1/search?q=puppy&mode=semantic`);
    expect(plain.status).toBe(400);
    expect(plain.body.error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('embedder') });
  });

  it('a failing embedding endpoint is a 502 that says so, not a 500', async () => {
    const failing: Embedder = {
      model: 'concepts',
      embed: async () => {
        throw new LedgerError('EMBEDDER_FAILED', 'The embeddings endpoint http://127.0.0.1:9/v1 refused the connection.');
      },
    };
    const failed = await get(`${await serve(failing)}/v1/search?q=puppy&mode=semantic`);
    expect(failed).toMatchObject({
      status: 502,
      body: { error: { code: 'EMBEDDER_FAILED', message: /refused the connection/ } },
    });
  });

  it('is documented: mode in the OpenAPI parameters with its two values', async () => {
    const document = (await get(`${await serve(undefined)}/v1/openapi.json`)).body;
    const search = document.paths['/v1/search'].get;
    expect(search.parameters.find((parameter: { name: string }) => parameter.name === 'mode')).toMatchObject({
      required: false,
      schema: { enum: ['words', 'semantic'] },
    });
    expect(search.responses['502']).toBeDefined();
  });
});

async function mcpClient(options: { ledger: AgentsLedger; noEmbedderAdvice?: string }): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(options).connect(serverSide);
  const client = new Client({ name: 'semantic-test', version: '0' });
  await client.connect(clientSide);
  return client;
}

type ToolAnswer = { content: { text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };

describe('MCP search_history mode "semantic"', () => {
  it('returns the turns nearest in meaning, with their similarity, and refuses raw and cursor', async () => {
    const client = await mcpClient({ ledger });
    try {
      const answer = (await client.callTool({
        name: 'search_history',
        arguments: { query: 'where is the puppy', mode: 'semantic', session: sessions.pets },
      })) as ToolAnswer;
      expect(answer.isError).toBeFalsy();
      const result = answer.structuredContent as { hits: { turnId: string; similarity: number }[]; note?: string };
      expect(result).toMatchObject({ mode: 'semantic', model: 'concepts', unembedded: 1, nextCursor: null });
      expect(result.hits[0]?.turnId).toBe(turns.beagle);
      expect(result.note).toMatch(/1 turns have no vector yet/);
      const refused = (await client.callTool({
        name: 'search_history',
        arguments: { query: 'puppy', mode: 'semantic', raw: true },
      })) as ToolAnswer;
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/^INVALID_INPUT: .*leave out raw/);
    } finally {
      await client.close();
    }
  });

  it('without an embedder: says so in the tool description, and refuses with the advice', async () => {
    const plain = openAgentsLedger(dbPath);
    opened.push(plain);
    const client = await mcpClient({ ledger: plain, noEmbedderAdvice: ADVICE });
    try {
      const { tools } = await client.listTools();
      const search = tools.find((tool) => tool.name === 'search_history');
      expect(JSON.stringify(search?.inputSchema.properties?.mode)).toMatch(/not available on this server/);
      const refused = (await client.callTool({
        name: 'search_history',
        arguments: { query: 'puppy', mode: 'semantic' },
      })) as ToolAnswer;
      expect(refused).toMatchObject({ isError: true, content: [{ text: `EMBEDDER_NOT_CONFIGURED: ${ADVICE}` }] });
      // Words still work on the same server.
      const words = (await client.callTool({ name: 'search_history', arguments: { query: 'beagle' } })) as ToolAnswer;
      expect((words.structuredContent as { hits: { turnId: string }[] }).hits[0]?.turnId).toBe(turns.beagle);
    } finally {
      await client.close();
    }
  });
});
