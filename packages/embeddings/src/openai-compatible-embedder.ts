// An Embedder over any OpenAI-compatible `POST {baseURL}/embeddings`: OpenAI, Ollama, vLLM,
// text-embeddings-inference, LiteLLM and the like. It splits the texts into batches, retries what
// may pass later (429 honouring Retry-After, 5xx, timeouts, connection errors), bounds every attempt
// as a whole, and checks that each answer is one finite vector per text before the ledger stores
// it. What the ledger does with the vectors is the ledger's (docs/context.md#embeddings).

import { type Embedder, InvalidInputError } from '@agent-ledger/core';
import { EmbedderError } from './embedder-error.ts';
import { parseEmbeddings } from './embeddings-response.ts';
import { embeddingsEndpoint } from './endpoint-url.ts';
import { type PostOutcome, postEmbeddings } from './post-embeddings.ts';
import { backoffMs, MAX_RETRY_WAIT_MS } from './retry-delay.ts';

export interface OpenAICompatibleEmbedderOptions {
  /** Up to the version: `http://localhost:11434/v1` (Ollama), `https://api.openai.com/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`; local servers need none. Never shown in an error. */
  apiKey?: string;
  /** The server's model name: `text-embedding-3-small`, `nomic-embed-text`, `BAAI/bge-small-en-v1.5`. */
  model: string;
  /** Asks for vectors of this length (models that can shorten theirs: text-embedding-3-*); the server's default otherwise. */
  dimensions?: number;
  /** Texts per request (32). */
  batchSize?: number;
  /** Bounds each attempt from connecting to the last byte of the answer, in ms (30,000). */
  timeoutMs?: number;
  /** Attempts after the first, for 408/409/429/5xx, timeouts and connection errors (3). */
  maxRetries?: number;
  /** The first backoff between attempts when the server names no wait, doubling up to 8 s (500 ms). */
  initialRetryDelayMs?: number;
  /**
   * Longer texts are cut to this many characters before they are sent (8,000, about 2,000 tokens):
   * servers refuse inputs over the model's window (OpenAI's is 8,191 tokens). Lower it for a model
   * with a 512-token window on a server that does not truncate.
   */
  maxInputCharacters?: number;
  fetch?: typeof fetch;
  /** How the embedder waits between attempts (tests record the waits instead). */
  sleep?: (milliseconds: number) => Promise<void>;
}

export interface OpenAICompatibleEmbedder extends Embedder {
  /** The URL requested, without credentials. */
  readonly endpoint: string;
}

const DEFAULTS = { batchSize: 32, timeoutMs: 30_000, maxRetries: 3, initialRetryDelayMs: 500, maxInputCharacters: 8_000 };

/**
 * The name vectors are stored under: the server's model and the dimensions asked for, so vectors of
 * two settings (a model shortened to 256 and the same model at full length) are never compared.
 */
export function openAICompatibleModelName(model: string, dimensions?: number): string {
  return `openai-compatible:${model}${dimensions === undefined ? '' : `@${dimensions}`}`;
}

export function createOpenAICompatibleEmbedder(options: OpenAICompatibleEmbedderOptions): OpenAICompatibleEmbedder {
  const settings = { ...DEFAULTS, ...withoutUndefined(options) };
  checkSettings(settings);
  const endpoint = embeddingsEndpoint(settings.baseURL);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  const fetchImplementation = settings.fetch ?? globalThis.fetch;
  const sleep = settings.sleep ?? ((milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds)));

  const fail = (message: string, details: { status: number | null; retryable: boolean }): never => {
    const redacted = settings.apiKey ? message.split(settings.apiKey).join('[API key]') : message;
    throw new EmbedderError(`The embeddings endpoint ${endpoint.shown} ${redacted}`, { endpoint: endpoint.shown, ...details });
  };

  /** The answer to one batch, after the retries its failures allow. */
  async function request(texts: readonly string[]): Promise<unknown> {
    const body = JSON.stringify({
      model: settings.model,
      input: texts.map((text) => sendable(text, settings.maxInputCharacters)),
      encoding_format: 'float',
      ...(settings.dimensions === undefined ? {} : { dimensions: settings.dimensions }),
    });
    for (let attempt = 1; ; attempt += 1) {
      const outcome: PostOutcome = await postEmbeddings({
        url: endpoint.url,
        headers,
        body,
        timeoutMs: settings.timeoutMs,
        fetch: fetchImplementation,
      });
      if (outcome.ok) return outcome.body;
      const attempts = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
      if (!outcome.retryable) fail(`${outcome.reason}. ${advice(outcome.status)}`, outcome);
      if (attempt > settings.maxRetries) fail(`${outcome.reason} (${attempts}). ${advice(outcome.status)}`, outcome);
      const wait = outcome.retryAfterMs ?? backoffMs(attempt - 1, settings.initialRetryDelayMs);
      if (wait > MAX_RETRY_WAIT_MS) {
        fail(`${outcome.reason} and asks to wait ${Math.ceil(wait / 1000)} s before trying again: try later.`, outcome);
      }
      await sleep(wait);
    }
  }

  return {
    model: openAICompatibleModelName(settings.model, settings.dimensions),
    endpoint: endpoint.shown,
    async embed(texts) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += settings.batchSize) {
        const batch = texts.slice(start, start + settings.batchSize);
        const parsed = parseEmbeddings(await request(batch), { count: batch.length, dimensions: settings.dimensions });
        if ('problem' in parsed) fail(`${parsed.problem}: nothing of this batch was kept.`, { status: 200, retryable: false });
        else vectors.push(...parsed.vectors);
      }
      // Batches are separate answers: a server switching models between them must not mix lengths.
      const length = vectors[0]?.length;
      if (vectors.some((vector) => vector.length !== length)) {
        fail('answered vectors of different lengths in two batches of one call.', { status: 200, retryable: false });
      }
      return vectors;
    },
  };
}

/** What to check, by the status of the refusal. */
function advice(status: number | null): string {
  if (status === null) return 'Check that the embeddings server is running and the base URL is right.';
  if (status === 401 || status === 403) return 'Check the API key.';
  if (status === 404) return 'Check the base URL (up to /v1) and the model name (the server must serve it).';
  if (status === 429) return 'The server limits the rate: try later or with a smaller batch.';
  if (status >= 500) return 'The server failed: check its log.';
  return 'Check the model name, the dimensions and the input size the server accepts.';
}

/** Servers refuse an empty input (OpenAI does): an empty turn is sent as one space. */
function sendable(text: string, maxCharacters: number): string {
  if (text.trim() === '') return ' ';
  return text.length > maxCharacters ? text.slice(0, maxCharacters) : text;
}

function checkSettings(settings: OpenAICompatibleEmbedderOptions & typeof DEFAULTS): void {
  const refuse = (field: string, what: string): never => {
    throw new InvalidInputError(`The embedder's ${field} must be ${what}.`, field);
  };
  if (typeof settings.model !== 'string' || settings.model.trim() === '') refuse('model', 'the name of an embedding model');
  if (settings.dimensions !== undefined && !isCount(settings.dimensions)) refuse('dimensions', 'a positive whole number');
  if (!isCount(settings.batchSize) || settings.batchSize > 2048) refuse('batchSize', 'a whole number from 1 to 2048');
  if (!(settings.timeoutMs > 0)) refuse('timeoutMs', 'more than 0');
  if (!Number.isInteger(settings.maxRetries) || settings.maxRetries < 0) refuse('maxRetries', 'a whole number, 0 or more');
  if (!(settings.initialRetryDelayMs >= 0)) refuse('initialRetryDelayMs', '0 or more');
  if (!isCount(settings.maxInputCharacters)) refuse('maxInputCharacters', 'a positive whole number');
}

function isCount(value: number): boolean {
  return Number.isInteger(value) && value > 0;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
