// How long to wait before trying an embeddings request again: what the server asked for
// (`retry-after-ms`, OpenAI's; `Retry-After` in seconds or as an HTTP date), else an exponential
// backoff with jitter, so many clients hit by one outage do not come back in step.

/** Longer than this and the embedder gives up instead of waiting (a quota reset an hour away, say). */
export const MAX_RETRY_WAIT_MS = 60_000;
/** The backoff doubles from the initial delay up to this. */
const MAX_BACKOFF_MS = 8_000;

/** The wait the server asked for, in ms; undefined when it asked none (or said it in a form not understood). */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number.parseFloat(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The backoff before retry number `retry` (0 for the first), between 75% and 100% of the doubled delay. */
export function backoffMs(retry: number, initialDelayMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, initialDelayMs * 2 ** retry);
  return Math.round(ceiling * (0.75 + 0.25 * random()));
}
