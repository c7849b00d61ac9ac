// GET /v1/sessions/{id}/stream: server-sent events when a session's head moves (`head`) or a
// compaction lands (`compaction`). One loop per client: it wakes on a signal from this process or
// on its poll timer, reads the head and the newest compaction above it (both O(1)), and sends what
// changed; so a burst of writes is one check, and writes from other processes are seen by polling.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { errorBody } from './http-errors.ts';
import type { SessionSignals } from './session-signals.ts';

export interface StreamOptions {
  ledger: AgentsLedger;
  signals: SessionSignals;
  /** How often the head is read for writes made elsewhere (default 500 ms). */
  pollIntervalMs?: number;
  /** How often a comment line keeps idle proxies from closing the stream (default 15 s). */
  heartbeatMs?: number;
  /** Ends the stream when the server shuts down, so the connection can close cleanly. */
  shutdown?: AbortSignal;
}

export const DEFAULT_POLL_INTERVAL_MS = 500;
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** Call after checking the session exists: a missing session is an ordinary 404 before the stream opens. */
export function streamSession(context: Context, sessionId: string, options: StreamOptions): Response {
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  return streamSSE(context, async (stream) => {
    let wake: (() => void) | null = null;
    const unsubscribe = options.signals.subscribe(sessionId, () => wake?.());
    stream.onAbort(() => wake?.());
    const onShutdown = () => wake?.();
    options.shutdown?.addEventListener('abort', onShutdown);
    let lastHead: string | null | undefined;
    let lastCompaction: string | null | undefined;
    let lastWrite = Date.now();
    try {
      while (!stream.aborted && !stream.closed && !options.shutdown?.aborted) {
        const head = (await options.ledger.getSession(sessionId)).headTurnId;
        // A turn's latest compaction is written with it and never changes, so it is looked up only
        // when the head moves: a quiet stream costs one small read per poll.
        if (head !== lastHead) {
          const compaction = head ? ((await options.ledger.findLatestCompaction(head))?.id ?? null) : null;
          // The first compaction value is the state the client connects to, not news.
          if (lastCompaction !== undefined && compaction !== null && compaction !== lastCompaction) {
            await stream.writeSSE({ event: 'compaction', data: JSON.stringify({ sessionId, turnId: compaction }) });
          }
          await stream.writeSSE({ event: 'head', data: JSON.stringify({ sessionId, headTurnId: head }) });
          lastWrite = Date.now();
          lastHead = head;
          lastCompaction = compaction;
        }
        if (Date.now() - lastWrite >= heartbeatMs) {
          await stream.write(': heartbeat\n\n');
          lastWrite = Date.now();
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollIntervalMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    } catch (error) {
      // A session cannot disappear, so this is a closed client or a closed database: end quietly,
      // in the API's error shape (a driver's own message stays on the server, as for any 500).
      if (!stream.aborted) await stream.writeSSE({ event: 'error', data: JSON.stringify(errorBody(error).body) }).catch(() => {});
    } finally {
      unsubscribe();
      options.shutdown?.removeEventListener('abort', onShutdown);
    }
  });
}
