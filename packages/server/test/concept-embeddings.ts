// Embeddings for the semantic search tests, where meaning and words disagree: "puppy" shares no word
// with "my beagle snores", and bm25 finds nothing, but both lie on the dog axis here as they would
// for a real model. The same vectors two ways: an Embedder in this process, and a real HTTP server on
// 127.0.0.1 that answers POST /v1/embeddings as OpenAI does (for the built CLI, whose own
// OpenAI-compatible client calls it), recording every text it was sent.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from '@agent-ledger/core';

const AXES = [/\b(dog|dogs|beagle|puppy|puppies)\b/g, /\b(build|esbuild|deploy|compile)\b/g, /\b(lunch|coffee|noon)\b/g];

/** One axis per concept, and a small constant so no vector is all zeros. */
export function conceptVector(text: string): number[] {
  return [...AXES.map((axis) => (text.toLowerCase().match(axis) ?? []).length), 0.01];
}

export const conceptEmbedder: Embedder = {
  model: 'concepts',
  embed: async (texts) => texts.map(conceptVector),
};

export interface ConceptEmbeddingsServer {
  /** `http://127.0.0.1:PORT/v1`, as $NEXUS_EMBEDDINGS_URL. */
  baseURL: string;
  /** Every text embedded, in the order asked. */
  texts: string[];
  close(): Promise<void>;
}

export async function startConceptEmbeddings(): Promise<ConceptEmbeddingsServer> {
  const texts: string[] = [];
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const input = (JSON.parse(body || '{}') as { input?: string[] }).input ?? [];
    texts.push(...input);
    const data = input.map((text, index) => ({ object: 'embedding', index, embedding: conceptVector(text) }));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ object: 'list', data, model: 'concepts', usage: { prompt_tokens: 1, total_tokens: 1 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    texts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
