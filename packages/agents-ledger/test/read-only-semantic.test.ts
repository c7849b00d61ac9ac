// The hybrid context's ranking by meaning on a ledger opened read-only (what `nexus context` and
// `nexus mcp` open): it cannot store vectors, so it sends the embedding endpoint the query alone,
// ranks by the vectors already stored, and counts the line's turns without one (only bm25 ranks
// them). A writable ledger still embeds and stores the line's missing vectors first. The endpoint is
// a real HTTP server on loopback that records every text it is sent; the ledger a real SQLite file.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from '@agent-ledger/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentsLedger, openAgentsLedger } from '../src/index.ts';
import { assistantTurn, openTempLedger, type TempLedger, userTurn } from './builders.ts';

const QUESTION = 'is the puppy still asleep';
/** One axis per concept: "puppy" and "beagle" meet on the first, which no word match can see. */
const AXES = [/\b(dog|beagle|puppy)\b/g, /\b(build|esbuild|deploy)\b/g, /\b(baby|asleep)\b/g];

/** A loopback embeddings endpoint: `{ input: string[] }` in, `{ vectors }` out; every request's texts kept. */
interface LoopbackEndpoint {
  url: string;
  requests: string[][];
  close(): Promise<void>;
}

async function startEndpoint(): Promise<LoopbackEndpoint> {
  const requests: string[][] = [];
  const server: Server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const input = (JSON.parse(body) as { input: string[] }).input;
    requests.push(input);
    const vectors = input.map((text) => [...AXES.map((axis) => (text.toLowerCase().match(axis) ?? []).length), 0.01]);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ vectors }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/embeddings`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function endpointEmbedder(url: string): Embedder {
  return {
    model: 'loopback-concepts',
    async embed(texts) {
      const response = await fetch(url, { method: 'POST', body: JSON.stringify({ input: texts }) });
      return ((await response.json()) as { vectors: number[][] }).vectors;
    },
  };
}

const filler = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) =>
    (from + index) % 2 === 0 ? userTurn(`build ${from + index} runs esbuild before deploy`) : assistantTurn('noted'),
  );

let endpoint: LoopbackEndpoint;
let temp: TempLedger;

beforeAll(async () => {
  endpoint = await startEndpoint();
});
afterAll(() => endpoint.close());
afterEach(() => temp?.cleanup());

/**
 * A session whose first 22 turns (the beagle among them) have stored vectors, and whose 21 later
 * turns (a baby "asleep", filler, the question) have none. Returns the ids; the endpoint's log is emptied.
 */
async function partlyEmbeddedLine(options: { embedFirst: boolean }) {
  temp = openTempLedger({ embedder: endpointEmbedder(endpoint.url) });
  const { ledger } = temp;
  const session = await ledger.createSession({ label: 'pets and builds' });
  const beagle = await ledger.appendTurn(session.id, userTurn('my beagle snores at night and wakes everyone'));
  await ledger.appendTurns(session.id, [assistantTurn('earplugs might help with the snoring'), ...filler(0, 20)]);
  if (options.embedFirst) expect((await ledger.embedMissing()).embedded).toBe(22);
  const baby = await ledger.appendTurn(session.id, userTurn('the baby was asleep by eight'));
  await ledger.appendTurns(session.id, filler(1, 19));
  const head = await ledger.appendTurn(session.id, userTurn(QUESTION));
  await ledger.close();
  endpoint.requests.length = 0;
  return { beagleId: beagle.id, babyId: baby.id, headId: head.id };
}

async function hybridContext(ledger: AgentsLedger, headId: string) {
  try {
    return await ledger.buildContext(headId, { query: QUESTION, retrieval: true, budgetTokens: 300 });
  } finally {
    await ledger.close();
  }
}

const readOnly = (embedder?: Embedder) => openAgentsLedger(temp.file, { readonly: true, ...(embedder ? { embedder } : {}) });

describe('ranking by meaning on a read-only ledger', () => {
  it('sends the query alone and ranks by the stored vectors: a turn found by meaning only is retrieved', async () => {
    const { beagleId, babyId, headId } = await partlyEmbeddedLine({ embedFirst: true });
    const built = await hybridContext(readOnly(endpointEmbedder(endpoint.url)), headId);
    expect(endpoint.requests).toEqual([[QUESTION]]);
    // The beagle shares no word with the question: only its stored vector can bring it.
    expect(built.retrievedTurnIds).toContain(beagleId);
    // The baby turn has no vector; bm25 ("asleep") still finds it.
    expect(built.retrievedTurnIds).toContain(babyId);
    expect(built).toMatchObject({ missingVectors: { model: 'loopback-concepts', turns: 21, rankedByMeaning: true } });
    const wordsOnly = await hybridContext(readOnly(), headId);
    expect(wordsOnly.retrievedTurnIds).toContain(babyId);
    expect(wordsOnly.retrievedTurnIds).not.toContain(beagleId);
  });

  it('with no vector of the model stored, calls no endpoint and ranks by bm25, saying how many turns lack one', async () => {
    const { beagleId, babyId, headId } = await partlyEmbeddedLine({ embedFirst: false });
    const built = await hybridContext(readOnly(endpointEmbedder(endpoint.url)), headId);
    expect(endpoint.requests).toEqual([]);
    expect(built.retrievedTurnIds).toContain(babyId);
    expect(built.retrievedTurnIds).not.toContain(beagleId);
    expect(built).toMatchObject({ missingVectors: { model: 'loopback-concepts', turns: 43, rankedByMeaning: false } });
  });
});

describe('ranking by meaning on a writable ledger', () => {
  it('embeds and stores the line turns without a vector, then the query; a read-only ledger after it sends the query alone', async () => {
    const { beagleId, headId } = await partlyEmbeddedLine({ embedFirst: true });
    const built = await hybridContext(openAgentsLedger(temp.file, { embedder: endpointEmbedder(endpoint.url) }), headId);
    const texts = endpoint.requests.flat();
    expect(texts).toHaveLength(22);
    expect(texts.slice(0, 2)).toEqual(['the baby was asleep by eight', 'noted']);
    expect(texts.at(-1)).toBe(QUESTION);
    expect(built.retrievedTurnIds).toContain(beagleId);
    expect(built).not.toHaveProperty('missingVectors');

    endpoint.requests.length = 0;
    const after = await hybridContext(readOnly(endpointEmbedder(endpoint.url)), headId);
    expect(endpoint.requests).toEqual([[QUESTION]]);
    expect(after.retrievedTurnIds).toEqual(built.retrievedTurnIds);
    expect(after).not.toHaveProperty('missingVectors');
  });
});
