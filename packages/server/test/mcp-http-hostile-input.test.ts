// /mcp on a real loopback server answers the same bad messages as `nexus mcp` on stdio with the same
// JSON-RPC errors: -32600 with the request's id for a message that is not JSON-RPC (the SDK said
// -32700 for all of them), -32700 for a body that is not JSON, and a JSON-RPC error (not the /v1
// error shape) for a body over the limit, streamed or declared. The server answers a ping after.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../src/index.ts';
import { type BadMessage, bigPing, MALFORMED_JSON, WRONG_MESSAGES } from './hostile-json-rpc-cases.ts';
import { type Fixture, openFixture } from './server-fixture.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let fixture: Fixture;
let server: RunningHttpServer;
beforeEach(async () => {
  fixture = openFixture();
  server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
});
afterEach(async () => {
  await server.close();
  await fixture.cleanup();
});

/** The body as bytes, or, for the big ones, a stream of 1 MiB pieces with no Content-Length. */
function bodyOf(bad: BadMessage, index: number): { body: RequestInit['body']; duplex?: 'half' } {
  if (typeof bad.line !== 'number') return { body: typeof bad.line === 'string' ? bad.line : new Uint8Array(bad.line) };
  const pieces = bigPing(`big-${index}`, bad.line);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  return { body: stream, duplex: 'half' };
}

async function post(init: { body: RequestInit['body']; duplex?: 'half' }): Promise<{ status: number; answer: unknown }> {
  try {
    const response = await fetch(`${server.url}/mcp`, { method: 'POST', headers: HEADERS, ...init } as RequestInit);
    return { status: response.status, answer: await response.json() };
  } catch (error) {
    return { status: 0, answer: String((error as Error).cause ?? error) };
  }
}

describe('/mcp on hostile input', () => {
  it('answers every bad body with the right JSON-RPC error and keeps serving', async () => {
    const wrong: string[] = [];
    for (const [index, bad] of [...WRONG_MESSAGES, ...MALFORMED_JSON].entries()) {
      const { status, answer } = await post(bodyOf(bad, index));
      const expected = {
        status: typeof bad.line === 'number' ? 413 : 400,
        answer: { jsonrpc: '2.0', id: bad.id ?? null, error: { code: bad.code } },
      };
      const got = { status, answer: trimmed(answer) };
      if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${bad.name}: ${JSON.stringify(got)}`);
    }
    expect(wrong).toEqual([]);

    // A 60 MB body that says its length is refused from the header, before a byte of it is read.
    const declared = await post({ body: 'x'.repeat(60 * 1024 * 1024) });
    expect(declared).toMatchObject({ status: 413, answer: { jsonrpc: '2.0', id: null, error: { code: -32600 } } });

    const ping = await post({ body: '{"jsonrpc":"2.0","id":1.0,"method":"ping"}' });
    expect(ping).toEqual({ status: 200, answer: { jsonrpc: '2.0', id: 1, result: {} } });
  }, 120_000);
});

/** The answer without its message, which is for people. */
function trimmed(answer: unknown): unknown {
  const value = answer as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown } };
  if (typeof value !== 'object' || value === null || !value.error) return answer;
  return { jsonrpc: value.jsonrpc, id: value.id, error: { code: value.error.code } };
}
