// One place that turns options and the environment into an SDK client, so the summarizer, the token
// count and a chat model built from the same options talk to the same endpoint with the same limits.

import Anthropic from '@anthropic-ai/sdk';

export interface AnthropicClientOptions {
  /** An existing client to share; the other options are ignored when it is given. */
  client?: Anthropic;
  /** `ANTHROPIC_API_KEY` by default. */
  apiKey?: string;
  /** `ANTHROPIC_BASE_URL` by default (a proxy, a gateway, or the test suite's loopback server). */
  baseURL?: string;
  /** Per request, in milliseconds (default 60 s; the SDK's own default is 10 minutes). */
  timeoutMs?: number;
  /** Retries the SDK makes on 408/409/429/5xx/529 and connection errors, honouring retry-after (default 2). */
  maxRetries?: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

export function createAnthropicClient(options: AnthropicClientOptions = {}): Anthropic {
  if (options.client) return options.client;
  return new Anthropic({
    apiKey: options.apiKey ?? process.env.ANTHROPIC_API_KEY,
    baseURL: options.baseURL ?? process.env.ANTHROPIC_BASE_URL,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
}

/** True when a key is configured (in the options or the environment), i.e. the real API can be used. */
export function hasAnthropicKey(options: Pick<AnthropicClientOptions, 'apiKey' | 'client'> = {}): boolean {
  return Boolean(options.client ?? options.apiKey ?? process.env.ANTHROPIC_API_KEY);
}

/** A one-line, actionable description of an SDK failure (status, API error type, message). */
export function describeApiFailure(error: unknown): string {
  if (error instanceof Anthropic.APIConnectionTimeoutError) return 'the request timed out (no answer within the timeout)';
  if (error instanceof Anthropic.APIConnectionError) return `could not reach the API (${error.message})`;
  if (error instanceof Anthropic.APIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    const detail = body?.error?.message ?? error.message;
    return `HTTP ${error.status ?? '?'}${body?.error?.type ? ` ${body.error.type}` : ''}: ${detail}`;
  }
  if (error instanceof SyntaxError) return `the API answered with malformed JSON (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}
