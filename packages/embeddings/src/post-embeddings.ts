// One POST to an embeddings endpoint, bounded as a whole: the timeout covers connecting, the
// headers and every byte of the body, so a server that answers its headers and then goes silent
// is given up on like one that never answers (fetch's own signal would not time the body out for
// us). Returns what happened as data; the caller decides whether to try again.

import { retryAfterMs } from './retry-delay.ts';

export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  fetch: typeof fetch;
}

export type PostOutcome =
  | { ok: true; body: unknown }
  | {
      ok: false;
      /** Trying again may help: 408, 409, 429, 5xx, a timeout, a connection that failed. */
      retryable: boolean;
      status: number | null;
      /** What went wrong, in words, with the server's own message when it sent one. */
      reason: string;
      retryAfterMs?: number;
    };

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

export async function postEmbeddings(request: PostRequest): Promise<PostOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.timeoutMs);
  try {
    const response = await request.fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    // Read inside the timer: the body is part of the answer the timeout bounds.
    const text = await response.text();
    if (!response.ok) return refusal(response, text);
    try {
      return { ok: true, body: JSON.parse(text) };
    } catch {
      // A 200 that is not JSON is an HTML page or a proxy's: the URL is wrong, retrying will not help.
      return {
        ok: false,
        retryable: false,
        status: response.status,
        reason: `answered something that is not JSON (${excerpt(text)})`,
      };
    }
  } catch (error) {
    if (controller.signal.aborted) {
      return { ok: false, retryable: true, status: null, reason: `gave no complete answer within ${request.timeoutMs} ms` };
    }
    return { ok: false, retryable: true, status: null, reason: `could not be reached (${networkReason(error)})` };
  } finally {
    clearTimeout(timer);
  }
}

function refusal(response: Response, text: string): PostOutcome {
  const status = response.status;
  const retryable = RETRYABLE_STATUSES.has(status) || status >= 500;
  const message = serverMessage(text);
  const wait = retryAfterMs(response.headers);
  return {
    ok: false,
    retryable,
    status,
    reason: `answered HTTP ${status}${message ? `: ${message}` : ''}`,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  };
}

/**
 * The error message in a refusal's body, in the shapes the servers use: OpenAI and vLLM
 * `{ error: { message } }` or `{ message }`, Ollama and text-embeddings-inference `{ error: "…" }`,
 * FastAPI `{ detail }`; else the start of the text.
 */
function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body.error;
    const candidates = [
      typeof error === 'object' && error !== null ? (error as Record<string, unknown>).message : error,
      body.message,
      body.detail,
    ];
    const found = candidates.find((candidate) => typeof candidate === 'string' && candidate.trim() !== '');
    if (typeof found === 'string') return excerpt(found);
  } catch {
    // Not JSON: the text itself says what happened.
  }
  return excerpt(text);
}

function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine;
}

/** Node's fetch says "fetch failed" and keeps the reason (ECONNREFUSED, ENOTFOUND…) in its cause. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
