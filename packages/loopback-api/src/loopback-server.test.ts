// The loopback Messages API server on its own, with plain `fetch`: routes, reply shapes, the queue
// and the responder, the context window, and each fault (error with headers, raw body, delay, hang,
// stall, a reply kept for the Nth request).

import { afterEach, describe, expect, it } from 'vitest';
import {
  type LoopbackApi,
  type LoopbackOptions,
  type MessagesRequestBody,
  promptTooLong,
  startLoopbackApi,
} from './loopback-server.ts';

let api: LoopbackApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function start(options: LoopbackOptions = {}): Promise<LoopbackApi> {
  api = await startLoopbackApi(options);
  return api;
}

function body(text: string, extra: Partial<MessagesRequestBody> = {}): MessagesRequestBody {
  return { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: text }], ...extra };
}

function post(server: LoopbackApi, path: string, payload: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'test-key' },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
    ...init,
  });
}

/** The text of a Messages reply's first content block. */
async function replyText(response: Response): Promise<string> {
  const json = (await response.json()) as { content: Array<{ type: string; text?: string }> };
  return json.content[0]?.text ?? '';
}

/** Waits (without a wall-clock assertion) until `condition` holds; the test timeout bounds it. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('routes', () => {
  it('answers 404 not_found_error for an unknown path or a method other than POST', async () => {
    const server = await start();
    for (const response of [await post(server, '/v1/complete', body('hi')), await fetch(`${server.url}/v1/messages`)]) {
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    }
    expect(server.requests).toEqual([]);
  });

  it('answers 400 invalid_request_error for a body that is not JSON or has no messages, and records neither', async () => {
    const server = await start();
    const notJson = await post(server, '/v1/messages', '{"model": "claude-test", "messages": [');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
    });
    const noMessages = await post(server, '/v1/messages', { model: 'claude-test' });
    expect(noMessages.status).toBe(400);
    expect(await noMessages.json()).toMatchObject({
      error: { type: 'invalid_request_error', message: 'messages: Field required' },
    });
    expect(server.requests).toEqual([]);
  });

  // JSON.parse('null') succeeds: a 500 here would be retried by the SDK, a 400 is not.
  it('answers 400 for a JSON body that is not an object (null)', async () => {
    const server = await start();
    const response = await post(server, '/v1/messages', 'null');
    expect(response.status).toBe(400);
  });

  it('answers /v1/messages with a message in the API shape, usage counted at four characters a token', async () => {
    const server = await start({ respond: () => ({ kind: 'text', text: 'Twelve chars' }) });
    const response = await post(server, '/v1/messages?beta=true', body('x'.repeat(40)));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('request-id')).toMatch(/^req_loopback_/);
    const json = await response.json();
    expect(json).toEqual({
      id: expect.stringMatching(/^msg_loopback_\d+$/),
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'Twelve chars' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 3 },
    });
  });

  it('gives every message a distinct id', async () => {
    const server = await start();
    const ids = new Set<string>();
    for (let index = 0; index < 3; index += 1) {
      const json = (await (await post(server, '/v1/messages', body('hi'))).json()) as { id: string };
      ids.add(json.id);
    }
    expect(ids.size).toBe(3);
  });

  it('answers with tool_use content and stop_reason tool_use, or the stop reason a reply names', async () => {
    const server = await start();
    server.enqueue(
      { kind: 'content', content: [{ type: 'tool_use', id: 'toolu_1', name: 'grep', input: { pattern: 'x' } }] },
      { kind: 'text', text: 'I cannot help with that.', stopReason: 'refusal' },
    );
    const toolUse = await (await post(server, '/v1/messages', body('find x'))).json();
    expect(toolUse).toMatchObject({
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'grep', input: { pattern: 'x' } }],
      stop_reason: 'tool_use',
    });
    const refusal = await (await post(server, '/v1/messages', body('something'))).json();
    expect(refusal).toMatchObject({ content: [{ type: 'text', text: 'I cannot help with that.' }], stop_reason: 'refusal' });
  });

  it('answers /v1/messages/count_tokens with the input tokens of system, messages and tools', async () => {
    const server = await start();
    const system = 's'.repeat(19);
    const tool = { name: 'grep', description: 'search', input_schema: { type: 'object' } };
    const response = await post(server, '/v1/messages/count_tokens', body('m'.repeat(20), { system, tools: [tool] }));
    expect(response.status).toBe(200);
    const expected = Math.ceil([system, 'm'.repeat(20), JSON.stringify(tool)].join('\n').length / 4);
    expect(await response.json()).toEqual({ input_tokens: expected });
    expect(server.requests[0]).toMatchObject({ route: 'count_tokens', inputTokens: expected });
  });

  it('counts system blocks and tool_result content toward the input', async () => {
    const server = await start();
    const request = body('', {
      system: [{ type: 'text', text: 'abcd' }],
      messages: [
        { role: 'user', content: 'efgh' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: { path: '/' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'ijkl' }] }] },
      ],
    });
    const json = (await (await post(server, '/v1/messages/count_tokens', request)).json()) as { input_tokens: number };
    expect(json.input_tokens).toBe(Math.ceil(['abcd', 'efgh', JSON.stringify({ path: '/' }), 'ijkl'].join('\n').length / 4));
  });
});

describe('replies', () => {
  it('echoes the last user message by default', async () => {
    const server = await start();
    const response = await post(
      server,
      '/v1/messages',
      body('', {
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'second question' },
        ],
      }),
    );
    expect(await replyText(response)).toBe('(loopback) You said: second question');
  });

  it('uses queued replies once each, in order, before the responder', async () => {
    const server = await start({ respond: () => ({ kind: 'text', text: 'from the responder' }) });
    server.enqueue({ kind: 'text', text: 'one' }, { kind: 'text', text: 'two' });
    const texts: string[] = [];
    for (let index = 0; index < 3; index += 1) texts.push(await replyText(await post(server, '/v1/messages', body('hi'))));
    expect(texts).toEqual(['one', 'two', 'from the responder']);
  });

  it('keeps a queue per route: a reply queued for count_tokens is not used by messages', async () => {
    const server = await start();
    server.enqueue(
      { route: 'count_tokens', kind: 'error', status: 500, errorType: 'api_error', message: 'count failed' },
      { kind: 'text', text: 'for messages' },
    );
    expect(await replyText(await post(server, '/v1/messages', body('hi')))).toBe('for messages');
    const counted = await post(server, '/v1/messages/count_tokens', body('hi'));
    expect(counted.status).toBe(500);
    expect(await counted.json()).toMatchObject({ error: { type: 'api_error', message: 'count failed' } });
    // The queue is empty again: count_tokens counts.
    expect(await (await post(server, '/v1/messages/count_tokens', body('hi'))).json()).toEqual({ input_tokens: 1 });
  });

  it('answers with the responder, given the recorded request, and setResponder replaces it', async () => {
    const seen: string[] = [];
    const server = await start({
      respond: async (request) => {
        seen.push(`${request.route}:${request.body.model}:${request.inputTokens}`);
        return { kind: 'text', text: `model ${request.body.model}` };
      },
    });
    expect(await replyText(await post(server, '/v1/messages', body('abcdefgh')))).toBe('model claude-test');
    expect(seen).toEqual(['messages:claude-test:2']);
    server.setResponder(() => ({ kind: 'error', status: 503, errorType: 'api_error', message: 'down' }));
    expect((await post(server, '/v1/messages', body('hi'))).status).toBe(503);
  });

  it('records every answered request in order: route, body, headers, input tokens', async () => {
    const server = await start();
    await post(server, '/v1/messages', body('first'));
    await post(server, '/v1/messages/count_tokens', body('second'));
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((request) => request.route)).toEqual(['messages', 'count_tokens']);
    expect(server.requests[0]?.body).toEqual(body('first'));
    expect(server.requests[0]?.headers['x-api-key']).toBe('test-key');
    expect(server.requests[1]?.inputTokens).toBe(Math.ceil('second'.length / 4));
    expect(typeof server.requests[0]?.receivedAt).toBe('number');
  });
});

describe('the context window', () => {
  it('answers a prompt over the window with 400 "prompt is too long: N tokens > M maximum"', async () => {
    const server = await start({ contextWindow: 10 });
    const response = await post(server, '/v1/messages', body('x'.repeat(100)));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 25 tokens > 10 maximum' },
    });
    // A prompt at the window is answered.
    expect((await post(server, '/v1/messages', body('x'.repeat(40)))).status).toBe(200);
    expect(server.requests.map((request) => request.inputTokens)).toEqual([25, 10]);
  });

  it('is changed by setContextWindow and removed with undefined', async () => {
    const server = await start();
    expect((await post(server, '/v1/messages', body('x'.repeat(100)))).status).toBe(200);
    server.setContextWindow(20);
    expect((await post(server, '/v1/messages', body('x'.repeat(100)))).status).toBe(400);
    server.setContextWindow(undefined);
    expect((await post(server, '/v1/messages', body('x'.repeat(100)))).status).toBe(200);
  });

  it('gives way to a queued reply, which is answered as scripted', async () => {
    const server = await start({ contextWindow: 1 });
    server.enqueue({ kind: 'text', text: 'scripted' });
    expect(await replyText(await post(server, '/v1/messages', body('x'.repeat(100))))).toBe('scripted');
  });
});

describe('faults', () => {
  it('answers an error reply with its status, the API error body and its headers', async () => {
    const server = await start();
    server.enqueue({
      kind: 'error',
      status: 429,
      errorType: 'rate_limit_error',
      message: 'Number of requests has exceeded your rate limit.',
      headers: { 'retry-after': '7', 'anthropic-ratelimit-requests-remaining': '0' },
    });
    const response = await post(server, '/v1/messages', body('hi'));
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit.' },
    });
  });

  it('answers a raw reply with exactly its status, body and content type', async () => {
    const server = await start();
    server.enqueue(
      { kind: 'raw', status: 200, body: '{"id": "msg_1", "content": [' },
      { kind: 'raw', status: 502, body: '<html>bad gateway</html>', contentType: 'text/html' },
    );
    const malformed = await post(server, '/v1/messages', body('hi'));
    expect(malformed.status).toBe(200);
    expect(malformed.headers.get('content-type')).toBe('application/json');
    expect(await malformed.text()).toBe('{"id": "msg_1", "content": [');
    const html = await post(server, '/v1/messages', body('hi'));
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(await html.text()).toBe('<html>bad gateway</html>');
  });

  it('counts a delayed reply as pending until it is sent', async () => {
    const server = await start();
    server.enqueue({ kind: 'text', text: 'slow', delayMs: 150 });
    expect(server.pending).toBe(0);
    const response = post(server, '/v1/messages', body('hi'));
    await until(() => server.requests.length === 1);
    expect(server.pending).toBe(1);
    expect(await replyText(await response)).toBe('slow');
    expect(server.pending).toBe(0);
  });

  it('sends nothing for a delayed reply whose client gave up, and stops counting it', async () => {
    const server = await start();
    server.enqueue({ kind: 'text', text: 'too late', delayMs: 60_000 });
    const controller = new AbortController();
    const response = post(server, '/v1/messages', body('hi'), { signal: controller.signal });
    await until(() => server.pending === 1);
    controller.abort();
    await expect(response).rejects.toMatchObject({ name: 'AbortError' });
    await until(() => server.pending === 0);
    // The server is still there for the next request.
    expect(await replyText(await post(server, '/v1/messages', body('next')))).toBe('(loopback) You said: next');
  });

  it('never answers a hung request: the client aborting ends it', async () => {
    const server = await start();
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const response = post(server, '/v1/messages', body('hi'), { signal: controller.signal });
    await until(() => server.requests.length === 1);
    controller.abort();
    await expect(response).rejects.toMatchObject({ name: 'AbortError' });
    expect(await replyText(await post(server, '/v1/messages', body('next')))).toBe('(loopback) You said: next');
  });

  // A hang answers nothing, so it stays pending until its connection closes.
  it('counts a hung request as pending', async () => {
    const server = await start();
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const response = post(server, '/v1/messages', body('hi'), { signal: controller.signal });
    await until(() => server.requests.length === 1);
    try {
      expect(server.pending).toBe(1);
    } finally {
      controller.abort();
      await response.catch(() => undefined);
    }
  });

  it('ends hung connections when closed, so close() resolves and the client sees the socket close', {
    timeout: 5000,
  }, async () => {
    const server = await start();
    server.enqueue({ kind: 'hang' }, { kind: 'hang' });
    const hung = Promise.allSettled([post(server, '/v1/messages', body('one')), post(server, '/v1/messages', body('two'))]);
    await until(() => server.requests.length === 2);
    await server.close();
    api = undefined;
    expect((await hung).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });

  it('stalls: sends a 200 and its headers (and a partial body), then nothing until the client gives up', async () => {
    const server = await start();
    server.enqueue({ kind: 'stall', partialBody: '{"id": ' });
    const controller = new AbortController();
    const response = await post(server, '/v1/messages', body('hi'), { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"id": ');
    expect(server.pending).toBe(1);
    controller.abort();
    await reader.read().catch(() => undefined);
    await until(() => server.pending === 0);
  });

  it('answers the Nth request on /v1/messages with the reply kept for it, once, ahead of the queue', async () => {
    const server = await start();
    server.replyAt(2, promptTooLong(1_500_000, 200_000));
    server.enqueue({ kind: 'text', text: 'queued' });
    await post(server, '/v1/messages/count_tokens', body('not counted'));
    expect(await replyText(await post(server, '/v1/messages', body('one')))).toBe('queued');
    const second = await post(server, '/v1/messages', body('two'));
    expect(second.status).toBe(400);
    expect(await second.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 1500000 tokens > 200000 maximum' },
    });
    expect(await replyText(await post(server, '/v1/messages', body('three')))).toBe('(loopback) You said: three');
  });
});
