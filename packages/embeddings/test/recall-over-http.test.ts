// The OpenAI-compatible embedder inside a real AgentsLedger (a SQLite file): the loopback server
// answers vectors that put "beagle" and "dog" on one axis, so a turn that shares no word with the
// question is recalled by meaning; vectors are stored under the embedder's model name; a server
// that fails leaves the context to bm25, as without an embedder.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import { type Embedder, sequentialIds } from '@agent-ledger/core';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAICompatibleEmbedder } from '../src/index.ts';
import { embeddingsAnswer, type LoopbackEmbeddingsServer, startLoopbackEmbeddings } from '../src/testing.ts';

/** Words mapped to concepts, as a real model would place them: "dog" and "beagle" are one. */
const CONCEPTS: Record<string, number> = { dog: 0, puppy: 0, beagle: 0, shoes: 1, sneakers: 1, pottery: 2, bowls: 2 };
const DIMENSIONS = 4;

function conceptVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const concept = CONCEPTS[word];
    const slot = concept ?? DIMENSIONS - 1;
    vector[slot] = (vector[slot] ?? 0) + (concept === undefined ? 0.05 : 1);
  }
  return vector;
}

// Filler after the beagle turn keeps it out of the recent turns a 200-token context holds.
const CHAT = [
  'Morning! Long week at work again.',
  'I adopted a beagle from the shelter on Saturday.',
  ...Array.from({ length: 12 }, (_, index) => `Status update ${index}: the migration checklist moves along.`),
  'Did you finish the quarterly report?',
  'Almost, two charts to go.',
  'The report is due on Friday.',
  'Then I will send it Thursday night.',
];
const QUESTION = 'What kind of dog did I get?';

let server: LoopbackEmbeddingsServer;
let folder: string | undefined;
const ledgers: AgentsLedger[] = [];

afterEach(async () => {
  for (const ledger of ledgers.splice(0)) await ledger.close();
  await server?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

async function chat(name: string, embedder?: Embedder) {
  folder ??= mkdtempSync(path.join(tmpdir(), 'embeddings-recall-'));
  const file = path.join(folder, `${name}.db`);
  // Ids and times of their own per ledger, so two ledgers fed the same chat build equal contexts.
  let clock = 1_700_000_000_000;
  const now = () => (clock += 1000);
  const ledger = openAgentsLedger(file, { generateId: sequentialIds(), now, ...(embedder ? { embedder } : {}) });
  ledgers.push(ledger);
  const session = await ledger.createSession();
  const ids: string[] = [];
  for (const [index, content] of CHAT.entries()) {
    ids.push((await ledger.appendTurn(session.id, { role: index % 2 === 0 ? 'user' : 'assistant', content })).id);
  }
  return { ledger, ids, head: ids.at(-1) as string, file };
}

describe('an AgentsLedger with the OpenAI-compatible embedder', () => {
  it('recalls by meaning a turn that shares no word with the question, from vectors it stored', async () => {
    server = await startLoopbackEmbeddings((request) => embeddingsAnswer((request.body.input ?? []).map(conceptVector)));
    const lexical = await chat('lexical');
    const without = await lexical.ledger.buildContext(lexical.head, { budgetTokens: 200, query: QUESTION, retrieval: true });
    expect(without.retrievedTurnIds ?? []).not.toContain(lexical.ids[1]);

    const embedder = createOpenAICompatibleEmbedder({ baseURL: server.baseURL, model: 'concepts', batchSize: 8 });
    const { ledger, ids, head, file } = await chat('semantic', embedder);
    const context = await ledger.buildContext(head, { budgetTokens: 200, query: QUESTION, retrieval: true });
    expect(context.retrievedTurnIds).toContain(ids[1]);
    expect(context.system).toContain('I adopted a beagle from the shelter on Saturday.');
    // 18 turns in batches of 8, then the question.
    expect(server.requests.map((request) => request.body.input?.length)).toEqual([8, 8, 2, 1]);
    const raw = openRawSqlite(file, { readonly: true });
    try {
      const stored = raw.prepare('SELECT model, dimensions, count(*) AS n FROM turn_embeddings GROUP BY model, dimensions').all();
      expect(stored).toEqual([{ model: 'openai-compatible:concepts', dimensions: DIMENSIONS, n: CHAT.length }]);
    } finally {
      raw.close();
    }
  });

  it('leaves recall to bm25 when the server keeps failing: the same context as without an embedder', async () => {
    server = await startLoopbackEmbeddings(() => ({ kind: 'json', status: 503, body: { error: 'loading model' } }));
    const embedder = createOpenAICompatibleEmbedder({
      baseURL: server.baseURL,
      model: 'concepts',
      maxRetries: 1,
      initialRetryDelayMs: 1,
    });
    const failing = await chat('failing', embedder);
    const query = 'when is the report due';
    const context = await failing.ledger.buildContext(failing.head, { budgetTokens: 200, query, retrieval: true });
    expect(server.requests).toHaveLength(2);
    const reference = await chat('reference');
    expect(context).toEqual(await reference.ledger.buildContext(reference.head, { budgetTokens: 200, query, retrieval: true }));
  });
});
