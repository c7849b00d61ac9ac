// A bound on a model API's silence. The SDK's `timeout` stops at a response's headers: an API (or a
// proxy) that sends its headers and then nothing is waited for forever. This SDK middleware reads a
// JSON response's body inside the SDK's attempt and ends it when nothing arrives for the limit; the
// SDK then treats the attempt as one that timed out (it retries, then throws
// APIConnectionTimeoutError), and `silentAttempts` lets the caller say which kind of timeout it was.
// Streaming responses pass through untouched: buffering them would undo the streaming (the chat
// model does not stream).

import type { Middleware } from '@anthropic-ai/sdk';

/** An attempt's response went quiet for longer than the limit. Its name and words are those of an abort, so the SDK retries it. */
class SilenceAbortError extends Error {
  constructor(limitMs: number) {
    super(`no data for ${limitMs} ms after the response headers`);
    this.name = 'AbortError';
  }
}

export interface SilenceLimit {
  middleware: Middleware;
  /** Attempts of this request that were ended for their silence. */
  readonly silentAttempts: number;
}

/** Middleware (one per request) that fails an attempt whose response body goes quiet for longer than `limitMs`. */
export function silenceLimit(limitMs: number): SilenceLimit {
  let silentAttempts = 0;
  const middleware: Middleware = async (request, next, context) => {
    const response = await next(request);
    if (!response.body || context.options?.stream) return response;
    try {
      const body = await readWithinSilence(response.body, limitMs);
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (error) {
      if (error instanceof SilenceAbortError) silentAttempts += 1;
      throw error;
    }
  };
  return {
    middleware,
    get silentAttempts() {
      return silentAttempts;
    },
  };
}

/** The whole body, or SilenceAbortError when a wait for the next bytes outlasts the limit. */
async function readWithinSilence(body: ReadableStream<Uint8Array>, limitMs: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SilenceAbortError(limitMs)), limitMs);
    });
    try {
      const { done, value } = await Promise.race([reader.read(), silence]);
      if (done) return concatenate(chunks);
      chunks.push(value);
    } catch (error) {
      // Closing the body closes the connection: the server sees the client give up.
      if (error instanceof SilenceAbortError) await reader.cancel(error).catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

function concatenate(chunks: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.length;
  }
  return whole;
}
