// A real HTTP server on 127.0.0.1 that speaks the OpenAI embeddings API, for the tests: it records
// every request (headers and body) and answers each with what the test's handler says: vectors,
// a refusal with headers, a hang, headers followed by silence, or any raw body.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedEmbeddingsRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: { model?: string; input?: string[]; dimensions?: number; encoding_format?: string };
}

export type LoopbackAnswer =
  | { kind: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'raw'; status?: number; text: string }
  | { kind: 'hang' }
  | { kind: 'silent-body' };

export type EmbeddingsHandler = (request: RecordedEmbeddingsRequest, index: number) => LoopbackAnswer;

export interface LoopbackEmbeddingsServer {
  /** `http://127.0.0.1:PORT/v1`: the base URL to give the embedder. */
  baseURL: string;
  requests: RecordedEmbeddingsRequest[];
  /** Replaces how the next requests are answered. */
  answerWith(handler: EmbeddingsHandler): void;
  close(): Promise<void>;
}

/** The OpenAI answer for these embeddings (arrays, or base64 strings), items in the order given (each names its index). */
export function embeddingsAnswer(vectors: readonly unknown[], order?: readonly number[]): LoopbackAnswer {
  const items = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding }));
  const data = order ? order.map((index) => items[index]) : items;
  return { kind: 'json', body: { object: 'list', data, model: 'loopback', usage: { prompt_tokens: 1, total_tokens: 1 } } };
}

export async function startLoopbackEmbeddings(handler: EmbeddingsHandler): Promise<LoopbackEmbeddingsServer> {
  let current = handler;
  const requests: RecordedEmbeddingsRequest[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const recorded: RecordedEmbeddingsRequest = {
      path: request.url ?? '',
      headers: request.headers,
      body: JSON.parse(text || '{}'),
    };
    requests.push(recorded);
    answer(response, current(recorded, requests.length - 1), open);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    answerWith: (next) => {
      current = next;
    },
    close: async () => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(response: ServerResponse, reply: LoopbackAnswer, open: Set<ServerResponse>): void {
  if (reply.kind === 'hang') {
    open.add(response);
    return;
  }
  if (reply.kind === 'silent-body') {
    // Headers and the start of a body, then nothing: only a timeout over the whole answer ends it.
    open.add(response);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"object":"list","data":[');
    return;
  }
  if (reply.kind === 'raw') {
    response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    response.end(reply.text);
    return;
  }
  response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
  response.end(JSON.stringify(reply.body));
}
