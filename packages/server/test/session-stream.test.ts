// GET /v1/sessions/{id}/stream over real HTTP: `head` on connect and whenever the head moves (by
// this server, or by another connection to the file that the server only sees by polling),
// `compaction` when one lands, heartbeats when idle, and the server lets go when the client leaves.

import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type RunningHttpServer, SessionSignals, startHttpServer } from '../src/index.ts';
import { type Fixture, jsonRequest, openFixture } from './server-fixture.ts';

interface SseEvent {
  event: string;
  data: string;
}

/** Reads an event stream and collects its events and comment lines as they arrive. */
function readStream(response: Response) {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const done = (async () => {
    for (;;) {
      const { value, done: finished } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (finished) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n');
        const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
        const data = lines
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (event) events.push({ event, data });
        comments.push(...lines.filter((line) => line.startsWith(':')));
        end = buffer.indexOf('\n\n');
      }
    }
  })();
  return { events, comments, cancel: () => reader.cancel(), done };
}

let fixture: Fixture;
let server: RunningHttpServer;
let signals: SessionSignals;

beforeEach(async () => {
  fixture = openFixture();
  signals = new SessionSignals();
  server = await startHttpServer({
    ledger: fixture.ledger,
    events: fixture.events,
    port: 0,
    pollIntervalMs: 100,
    heartbeatMs: 300,
    signals,
  });
});
afterEach(async () => {
  await server.close();
  await fixture.cleanup();
});

describe('session stream', () => {
  it('sends head on connect, on appends through the server and from another connection, and compaction when one lands', async () => {
    const session = await fixture.ledger.createSession({
      settings: { contextWindow: 2000, reserveTokens: 200, keepRecentTokens: 100 },
    });
    const response = await fetch(`${server.url}/v1/sessions/${session.id}/stream`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const stream = readStream(response);
    await vi.waitFor(() =>
      expect(stream.events).toEqual([{ event: 'head', data: JSON.stringify({ sessionId: session.id, headTurnId: null }) }]),
    );

    const appended = (await (
      await fetch(
        `${server.url}/v1/sessions/${session.id}/turns`,
        jsonRequest('POST', { role: 'user', content: 'through the server' }),
      )
    ).json()) as { headTurnId: string };
    await vi.waitFor(() =>
      expect(stream.events.at(-1)?.data).toBe(JSON.stringify({ sessionId: session.id, headTurnId: appended.headTurnId })),
    );

    // Another writer on the same file (as the CLI or a second server would be): seen by polling.
    const other = openAgentsLedger(fixture.dbPath);
    let lastOther = '';
    try {
      for (let index = 0; index < 30; index += 1) {
        lastOther = (
          await other.appendTurn(session.id, {
            role: index % 2 ? 'user' : 'assistant',
            content: `elsewhere ${index} about tides and harbours`,
          })
        ).id;
      }
    } finally {
      await other.close();
    }
    await vi.waitFor(() =>
      expect(stream.events.at(-1)).toEqual({
        event: 'head',
        data: JSON.stringify({ sessionId: session.id, headTurnId: lastOther }),
      }),
    );

    const compaction = (await (await fetch(`${server.url}/v1/sessions/${session.id}/compact`, { method: 'POST' })).json()) as {
      id: string;
    };
    await vi.waitFor(() =>
      expect(stream.events.slice(-2)).toEqual([
        { event: 'compaction', data: JSON.stringify({ sessionId: session.id, turnId: compaction.id }) },
        { event: 'head', data: JSON.stringify({ sessionId: session.id, headTurnId: compaction.id }) },
      ]),
    );
    // Every head event names a distinct head: a burst of writes is not replayed event by event.
    const heads = stream.events.filter((event) => event.event === 'head').map((event) => event.data);
    expect(new Set(heads).size).toBe(heads.length);
    await stream.cancel();
  });

  it('sends heartbeats when idle and stops work when the client disconnects', async () => {
    const session = await fixture.ledger.createSession();
    const stream = readStream(await fetch(`${server.url}/v1/sessions/${session.id}/stream`));
    await vi.waitFor(() => expect(signals.listenerCount(session.id)).toBe(1));
    await vi.waitFor(() => expect(stream.comments).toContain(': heartbeat'), { timeout: 5000 });
    await stream.cancel();
    await vi.waitFor(() => expect(signals.listenerCount(session.id)).toBe(0), { timeout: 5000 });
  });

  it('ends with an error event in the API error shape when the ledger fails under it', async () => {
    const own = openAgentsLedger(fixture.dbPath);
    const ownServer = await startHttpServer({ ledger: own, events: fixture.events, port: 0, pollIntervalMs: 50 });
    try {
      const session = await own.createSession();
      const stream = readStream(await fetch(`${ownServer.url}/v1/sessions/${session.id}/stream`));
      await vi.waitFor(() => expect(stream.events.map((event) => event.event)).toEqual(['head']));
      await own.close();
      await stream.done;
      const failure = stream.events.at(-1);
      expect(failure?.event).toBe('error');
      expect(JSON.parse(failure?.data ?? '')).toMatchObject({
        error: { code: expect.any(String), message: expect.any(String) },
      });
    } finally {
      await ownServer.close();
    }
  });

  it('answers an unknown session with a 404 before any stream opens', async () => {
    const response = await fetch(`${server.url}/v1/sessions/s_nope/stream`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } });
  });
});

describe('closing the server', () => {
  it('ends live streams, lets a request in flight finish, then resolves', async () => {
    // A summarizer that takes a while: the compaction is still running when close() is called.
    let release: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = openAgentsLedger(fixture.dbPath, {
      summarizer: {
        name: 'slow',
        async summarize() {
          release();
          await new Promise((resolve) => setTimeout(resolve, 300));
          return { text: 'the weather and the sea, summarized', usage: { inputTokens: 0, outputTokens: 0 } };
        },
      },
    });
    const own = await startHttpServer({ ledger: slow, events: fixture.events, port: 0 });
    try {
      const session = await slow.createSession({ settings: { contextWindow: 2000, reserveTokens: 200, keepRecentTokens: 100 } });
      for (let index = 0; index < 30; index += 1) {
        await slow.appendTurn(session.id, {
          role: index % 2 ? 'assistant' : 'user',
          content: `turn ${index} about the weather and the sea`,
        });
      }
      const stream = readStream(await fetch(`${own.url}/v1/sessions/${session.id}/stream`));
      const compacting = fetch(`${own.url}/v1/sessions/${session.id}/compact`, { method: 'POST' });
      await started;
      await own.close({ graceMs: 10_000 });
      const response = await compacting;
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ turnType: 'compaction', summary: expect.stringContaining('weather') });
      await stream.done; // the stream ended on its own: the server closed it
      expect(stream.events[0]?.event).toBe('head');
      await expect(fetch(`${own.url}/v1/sessions`)).rejects.toThrow();
    } finally {
      await slow.close();
    }
  });
});
