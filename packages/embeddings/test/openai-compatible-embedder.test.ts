// The OpenAI-compatible embedder against a real HTTP server on loopback: batches, order by index,
// dimensions, retries (429 with Retry-After, 5xx, timeouts, a server that is not there), and every
// malformed answer refused with the endpoint and the status named, never the key.

import { LedgerError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createOpenAICompatibleEmbedder,
  EmbedderError,
  embedderSettingsFromEnvironment,
  type OpenAICompatibleEmbedderOptions,
} from '../src/index.ts';
import { embeddingsAnswer, type LoopbackEmbeddingsServer, startLoopbackEmbeddings } from '../src/testing.ts';

/** A vector that says which text it is for: [position in its request, text length]. */
const echoVectors = (input: readonly string[] = []) => input.map((text, index) => [index, text.length]);

let server: LoopbackEmbeddingsServer;
afterEach(async () => server?.close());

/** An embedder on the loopback server whose waits are recorded, not slept. */
function embedderOn(options: Partial<OpenAICompatibleEmbedderOptions> = {}) {
  const waits: number[] = [];
  const embedder = createOpenAICompatibleEmbedder({
    baseURL: server.baseURL,
    model: 'loopback-embed',
    sleep: async (milliseconds) => {
      waits.push(milliseconds);
    },
    ...options,
  });
  return { embedder, waits };
}

async function failure(promise: Promise<unknown>): Promise<EmbedderError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(EmbedderError.isInstance(error), String(error)).toBe(true);
  return error as EmbedderError;
}

describe('createOpenAICompatibleEmbedder on a loopback server', () => {
  it('posts batches of batchSize to {baseURL}/embeddings and returns one vector per text, in order', async () => {
    server = await startLoopbackEmbeddings((request) => embeddingsAnswer(echoVectors(request.body.input)));
    const { embedder } = embedderOn({ batchSize: 32, apiKey: 'sk-loopback-secret' });
    const texts = Array.from({ length: 70 }, (_, index) => 'x'.repeat(index + 1));
    const vectors = await embedder.embed(texts);
    expect(server.requests.map((request) => request.body.input?.length)).toEqual([32, 32, 6]);
    expect(vectors.map((vector) => vector[1])).toEqual(texts.map((text) => text.length));
    const [first] = server.requests;
    expect(first?.path).toBe('/v1/embeddings');
    expect(first?.headers.authorization).toBe('Bearer sk-loopback-secret');
    expect(first?.body).toMatchObject({ model: 'loopback-embed', encoding_format: 'float' });
    expect(first?.body).not.toHaveProperty('dimensions');
    expect(embedder.model).toBe('openai-compatible:loopback-embed');
    expect(embedder.endpoint).toBe(`${server.baseURL}/embeddings`);
  });

  it('puts items listed out of order back by their index', async () => {
    server = await startLoopbackEmbeddings((request) => embeddingsAnswer(echoVectors(request.body.input), [2, 0, 3, 1]));
    const { embedder } = embedderOn();
    expect(await embedder.embed(['a', 'bb', 'ccc', 'dddd'])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });

  it('asks for dimensions, names the model with them, and refuses vectors of another length', async () => {
    server = await startLoopbackEmbeddings((request) =>
      embeddingsAnswer((request.body.input ?? []).map(() => new Array(request.body.dimensions ?? 5).fill(0.5))),
    );
    const { embedder } = embedderOn({ dimensions: 3 });
    expect(await embedder.embed(['one'])).toEqual([[0.5, 0.5, 0.5]]);
    expect(server.requests[0]?.body.dimensions).toBe(3);
    expect(embedder.model).toBe('openai-compatible:loopback-embed@3');
    expect(createOpenAICompatibleEmbedder({ baseURL: server.baseURL, model: 'loopback-embed' }).model).not.toBe(embedder.model);

    server.answerWith((request) => embeddingsAnswer((request.body.input ?? []).map(() => [1, 2, 3, 4])));
    const error = await failure(embedder.embed(['one']));
    expect(error.message).toContain('answered 4-dimensional vectors where 3 were asked');
  });

  it('waits what a 429 asks (Retry-After in seconds, retry-after-ms), then succeeds', async () => {
    server = await startLoopbackEmbeddings((request, index) => {
      if (index === 0)
        return { kind: 'json', status: 429, body: { error: { message: 'Rate limit reached' } }, headers: { 'retry-after': '2' } };
      if (index === 1) return { kind: 'json', status: 429, body: { error: 'slow down' }, headers: { 'retry-after-ms': '150' } };
      return embeddingsAnswer(echoVectors(request.body.input));
    });
    const { embedder, waits } = embedderOn();
    expect(await embedder.embed(['hello'])).toEqual([[0, 5]]);
    expect(server.requests).toHaveLength(3);
    expect(waits).toEqual([2000, 150]);
  });

  it('retries a 500 twice with a growing backoff and succeeds on the third attempt', async () => {
    server = await startLoopbackEmbeddings((request, index) =>
      index < 2
        ? { kind: 'json', status: 500, body: { error: 'model runner crashed' } }
        : embeddingsAnswer(echoVectors(request.body.input)),
    );
    const { embedder, waits } = embedderOn({ initialRetryDelayMs: 100 });
    expect(await embedder.embed(['hi'])).toEqual([[0, 2]]);
    expect(server.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(75);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBeGreaterThanOrEqual(150);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it('gives up after maxRetries with the status, the server message and the endpoint', async () => {
    server = await startLoopbackEmbeddings(() => ({ kind: 'json', status: 503, body: { error: { message: 'overloaded' } } }));
    const { embedder } = embedderOn({ maxRetries: 1 });
    const error = await failure(embedder.embed(['hi']));
    expect(server.requests).toHaveLength(2);
    expect(error.message).toBe(
      `The embeddings endpoint ${server.baseURL}/embeddings answered HTTP 503: overloaded (2 attempts). The server failed: check its log.`,
    );
    expect(error).toMatchObject({
      code: 'EMBEDDER_FAILED',
      status: 503,
      isRetryable: true,
      endpoint: `${server.baseURL}/embeddings`,
    });
    expect(LedgerError.isInstance(error)).toBe(true);
  });

  it('does not retry a 401, and never shows the key even when the server echoes it', async () => {
    server = await startLoopbackEmbeddings(() => ({
      kind: 'json',
      status: 401,
      body: { error: { message: 'Incorrect API key provided: sk-loopback-secret.' } },
    }));
    const { embedder } = embedderOn({ apiKey: 'sk-loopback-secret' });
    const error = await failure(embedder.embed(['hi']));
    expect(server.requests).toHaveLength(1);
    expect(error.message).not.toContain('sk-loopback-secret');
    expect(error.message).toContain('answered HTTP 401: Incorrect API key provided: [API key].');
    expect(error.message).toContain('Check the API key.');
    expect(error).toMatchObject({ status: 401, isRetryable: false });
  });

  it('refuses to wait longer than a minute for a Retry-After', async () => {
    server = await startLoopbackEmbeddings(() => ({ kind: 'json', status: 429, body: {}, headers: { 'retry-after': '3600' } }));
    const { embedder, waits } = embedderOn();
    const error = await failure(embedder.embed(['hi']));
    expect(error.message).toContain('asks to wait 3600 s before trying again');
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('bounds each attempt: a server that never answers, and one that sends headers then nothing', async () => {
    server = await startLoopbackEmbeddings(() => ({ kind: 'hang' }));
    const hung = await failure(embedderOn({ timeoutMs: 300, maxRetries: 1 }).embedder.embed(['hi']));
    expect(hung.message).toContain('gave no complete answer within 300 ms (2 attempts)');
    expect(hung).toMatchObject({ status: null, isRetryable: true });
    expect(server.requests).toHaveLength(2);

    server.answerWith(() => ({ kind: 'silent-body' }));
    const silent = await failure(embedderOn({ timeoutMs: 300, maxRetries: 0 }).embedder.embed(['hi']));
    expect(silent.message).toContain('gave no complete answer within 300 ms (1 attempt)');
    expect(server.requests).toHaveLength(3);
  });

  it('says when nothing listens at the URL', async () => {
    server = await startLoopbackEmbeddings(() => ({ kind: 'hang' }));
    const baseURL = server.baseURL;
    await server.close();
    const error = await failure(embedderOn({ baseURL, maxRetries: 0 }).embedder.embed(['hi']));
    expect(error.message).toBe(
      `The embeddings endpoint ${baseURL}/embeddings could not be reached (ECONNREFUSED) (1 attempt). Check that the embeddings server is running and the base URL is right.`,
    );
  });

  it('refuses malformed answers: wrong count, NaN or null, ragged lengths, bad indexes, not JSON', async () => {
    const cases: Array<[answer: Parameters<LoopbackEmbeddingsServer['answerWith']>[0], expected: string]> = [
      [() => embeddingsAnswer([[1, 2]]), 'answered 1 embeddings for 2 inputs'],
      [
        () =>
          embeddingsAnswer([
            [1, null],
            [1, 2],
          ]),
        'answered, for input 0, a vector holding something other than finite numbers',
      ],
      [
        () => ({ kind: 'raw', text: '{"data":[{"index":0,"embedding":[NaN,1]},{"index":1,"embedding":[1,1]}]}' }),
        'answered something that is not JSON',
      ],
      [
        () =>
          embeddingsAnswer([
            [1, 2],
            [1, 2, 3],
          ]),
        'answered vectors of different lengths (2 and 3)',
      ],
      [() => embeddingsAnswer([[1, 2], []]), 'answered, for input 1, an empty vector'],
      [
        () => ({
          kind: 'json',
          body: {
            data: [
              { index: 0, embedding: [1] },
              { index: 0, embedding: [2] },
            ],
          },
        }),
        'answered two embeddings with index 0',
      ],
      [
        () => ({
          kind: 'json',
          body: {
            data: [
              { index: 0, embedding: [1] },
              { index: 7, embedding: [2] },
            ],
          },
        }),
        'with index 7 for 2 inputs',
      ],
      [() => ({ kind: 'json', body: { embeddings: [[1], [2]] } }), 'answered without a `data` list of embeddings'],
    ];
    server = await startLoopbackEmbeddings(() => ({ kind: 'hang' }));
    const { embedder } = embedderOn();
    for (const [answer, expected] of cases) {
      server.answerWith(answer);
      const error = await failure(embedder.embed(['a', 'b']));
      expect(error.message).toContain(expected);
      expect(error.message).toContain(`${server.baseURL}/embeddings`);
      expect(error.isRetryable).toBe(false);
    }
    // Two batches of one call that disagree on the length are refused too.
    server.answerWith((request, index) => embeddingsAnswer((request.body.input ?? []).map(() => new Array(index + 2).fill(1))));
    const split = await failure(embedderOn({ batchSize: 1 }).embedder.embed(['a', 'b']));
    expect(split.message).toContain('different lengths in two batches');
  });

  it('reads base64 float32 embeddings, sends an empty text as a space and cuts long ones', async () => {
    const base64 = Buffer.from(new Float32Array([0.25, -1.5]).buffer).toString('base64');
    server = await startLoopbackEmbeddings((request) => embeddingsAnswer((request.body.input ?? []).map(() => base64)));
    const { embedder } = embedderOn({ maxInputCharacters: 10 });
    expect(await embedder.embed(['', 'y'.repeat(50)])).toEqual([
      [0.25, -1.5],
      [0.25, -1.5],
    ]);
    expect(server.requests[0]?.body.input).toEqual([' ', 'y'.repeat(10)]);
  });
});

describe('embedder settings', () => {
  it('refuses what cannot work, and never shows credentials in a URL', () => {
    expect(() => createOpenAICompatibleEmbedder({ baseURL: 'localhost:11434', model: 'm' })).toThrow(
      /must start with http:\/\/ or https:\/\/ \(like http:\/\/localhost:11434\/v1\), got "localhost:11434"/,
    );
    expect(() => createOpenAICompatibleEmbedder({ baseURL: 'not a url', model: 'm' })).toThrow(/is not a URL/);
    expect(() => createOpenAICompatibleEmbedder({ baseURL: 'http://x/v1', model: ' ' })).toThrow(/model must be/);
    expect(() => createOpenAICompatibleEmbedder({ baseURL: 'http://x/v1', model: 'm', dimensions: 0 })).toThrow(/dimensions/);
    expect(() => createOpenAICompatibleEmbedder({ baseURL: 'http://x/v1', model: 'm', batchSize: 5000 })).toThrow(/batchSize/);
    const embedder = createOpenAICompatibleEmbedder({ baseURL: 'https://ada:hunter2@proxy.example/v1/', model: 'm' });
    expect(embedder.endpoint).toBe('https://proxy.example/v1/embeddings');
  });

  it('reads NEXUS_EMBEDDINGS_*, and OPENAI_API_KEY only for api.openai.com; given values win', () => {
    const env = {
      NEXUS_EMBEDDINGS_URL: 'http://localhost:11434/v1',
      NEXUS_EMBEDDINGS_MODEL: 'nomic-embed-text',
      NEXUS_EMBEDDINGS_DIMENSIONS: '256',
      OPENAI_API_KEY: 'sk-openai',
    };
    expect(embedderSettingsFromEnvironment(env)).toEqual({
      baseURL: 'http://localhost:11434/v1',
      model: 'nomic-embed-text',
      dimensions: 256,
    });
    expect(
      embedderSettingsFromEnvironment(env, { baseURL: 'https://api.openai.com/v1', model: 'text-embedding-3-small' }),
    ).toEqual({
      baseURL: 'https://api.openai.com/v1',
      model: 'text-embedding-3-small',
      apiKey: 'sk-openai',
      dimensions: 256,
    });
    expect(embedderSettingsFromEnvironment({ ...env, NEXUS_EMBEDDINGS_KEY: 'own' }).apiKey).toBe('own');
    expect(embedderSettingsFromEnvironment({})).toEqual({});
  });
});
