// The Anthropic chat model alone, on the real SDK against the loopback Messages API: the request it
// sends (model, max_tokens, system and tools only when there are some), how a reply maps to ledger
// blocks, and how failures map to ContextOverflowError (the API's "prompt is too long") or ModelError.

import { ContextOverflowError, LedgerError, type Message, ModelError } from '@agent-ledger/core';
import type { LoopbackApi } from '@agent-ledger/loopback-api';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicChatModel, DEFAULT_CHAT_MODEL, type ModelRequest, type ToolDefinition } from '../src/index.ts';
import { CHAT_MODEL, chatModel, overflowReply, Resources, rejection, until } from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

const QUESTION: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Which port does the cache listen on?' }] }];

const LOOKUP: ToolDefinition = {
  name: 'lookup_port',
  description: 'Looks up the port a service listens on.',
  input_schema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { system: '', messages: QUESTION, tools: [], ...overrides };
}

function onlyRequest(api: LoopbackApi) {
  expect(api.requests).toHaveLength(1);
  const [first] = api.requests;
  if (!first) throw new Error('no request');
  return first.body;
}

describe('the request body', () => {
  it('names claude-sonnet-4-6 by default, sends max_tokens 1024, and omits system and tools when there are none', async () => {
    const saved = process.env.NEXUS_CHAT_MODEL;
    delete process.env.NEXUS_CHAT_MODEL;
    try {
      const api = await resources.server();
      const model = createAnthropicChatModel({ apiKey: 'test-key', baseURL: api.url, maxRetries: 0, timeoutMs: 10_000 });
      expect(model.name).toBe(DEFAULT_CHAT_MODEL);
      expect(DEFAULT_CHAT_MODEL).toBe('claude-sonnet-4-6');
      await model.respond(request());
      const body = onlyRequest(api);
      expect(body.model).toBe('claude-sonnet-4-6');
      expect(body.max_tokens).toBe(1024);
      expect(body.messages).toEqual(QUESTION);
      expect('system' in body).toBe(false);
      expect('tools' in body).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.NEXUS_CHAT_MODEL;
      else process.env.NEXUS_CHAT_MODEL = saved;
    }
  });

  it('takes the model from NEXUS_CHAT_MODEL when the options name none, and the options over the environment', async () => {
    const saved = process.env.NEXUS_CHAT_MODEL;
    process.env.NEXUS_CHAT_MODEL = 'claude-from-env';
    try {
      const api = await resources.server();
      const fromEnv = createAnthropicChatModel({ apiKey: 'test-key', baseURL: api.url, maxRetries: 0 });
      expect(fromEnv.name).toBe('claude-from-env');
      expect(fromEnv.label).toBe('Anthropic claude-from-env');
      await fromEnv.respond(request());
      const fromOptions = chatModel(api);
      await fromOptions.respond(request());
      expect(api.requests.map((each) => each.body.model)).toEqual(['claude-from-env', CHAT_MODEL]);
    } finally {
      if (saved === undefined) delete process.env.NEXUS_CHAT_MODEL;
      else process.env.NEXUS_CHAT_MODEL = saved;
    }
    expect(process.env.NEXUS_CHAT_MODEL).toBe(saved);
  });

  it('sends the system prompt, the tools and maxTokens when given', async () => {
    const api = await resources.server();
    await chatModel(api, { maxTokens: 77 }).respond(request({ system: 'You answer about ports.', tools: [LOOKUP] }));
    const body = onlyRequest(api);
    expect(body.max_tokens).toBe(77);
    expect(body.system).toBe('You answer about ports.');
    expect(body.tools).toEqual([LOOKUP]);
    expect(body.messages).toEqual(QUESTION);
  });
});

describe('the reply', () => {
  it('keeps text and tool_use blocks, the stop reason, the model that answered and the usage', async () => {
    const api = await resources.server();
    api.enqueue({
      kind: 'content',
      content: [
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool_use', id: 'toolu_01', name: 'lookup_port', input: { service: 'cache' } },
      ],
    });
    const reply = await chatModel(api).respond(request({ tools: [LOOKUP] }));
    expect(reply).toEqual({
      content: [
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool_use', id: 'toolu_01', name: 'lookup_port', input: { service: 'cache' } },
      ],
      stopReason: 'tool_use',
      model: CHAT_MODEL,
      usage: { inputTokens: api.requests[0]?.inputTokens, outputTokens: expect.any(Number) },
    });
    expect(reply.usage.inputTokens).toBeGreaterThan(0);
    expect(reply.usage.outputTokens).toBeGreaterThan(0);
  });

  it('reports the stop reason the API gave (max_tokens) and the model the API says answered', async () => {
    const api = await resources.server();
    api.enqueue({
      kind: 'raw',
      status: 200,
      body: JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-resolved-alias-20250101',
        content: [
          { type: 'thinking', thinking: 'The cache is redis.', signature: 'sig' },
          { type: 'text', text: 'Port 6379' },
        ],
        stop_reason: 'max_tokens',
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 3 },
      }),
    });
    const reply = await chatModel(api).respond(request());
    // The thinking block is not part of the transcript the ledger keeps.
    expect(reply).toEqual({
      content: [{ type: 'text', text: 'Port 6379' }],
      stopReason: 'max_tokens',
      model: 'claude-resolved-alias-20250101',
      usage: { inputTokens: 12, outputTokens: 3 },
    });
  });
});

describe('failures', () => {
  it('maps 400 "prompt is too long: N tokens > M maximum" to ContextOverflowError with both figures', async () => {
    const api = await resources.server({ contextWindow: 5 });
    const error = await rejection(chatModel(api).respond(request()));
    expect(error).toBeInstanceOf(ContextOverflowError);
    const overflow = error as ContextOverflowError;
    expect(overflow.code).toBe('CONTEXT_OVERFLOW');
    expect(LedgerError.isInstance(overflow)).toBe(true);
    const sent = api.requests[0]?.inputTokens ?? 0;
    expect(sent).toBeGreaterThan(5);
    expect(overflow.promptTokens).toBe(sent);
    expect(overflow.limitTokens).toBe(5);
    expect(overflow.message).toContain(`prompt is too long: ${sent} tokens > 5 maximum`);
    expect(overflow.message).toContain(CHAT_MODEL);
    expect(overflow.cause).toBeInstanceOf(Anthropic.APIError);
    // A 400 is not retried.
    expect(api.requests).toHaveLength(1);
  });

  it('maps the scripted API wording with large figures, and a 413 request_too_large without figures', async () => {
    const api = await resources.server();
    api.enqueue(overflowReply(210_000, 200_000), {
      kind: 'error',
      status: 413,
      errorType: 'request_too_large',
      message: 'Request exceeds the maximum allowed number of bytes.',
    });
    const model = chatModel(api);
    const first = (await rejection(model.respond(request()))) as ContextOverflowError;
    expect(first).toBeInstanceOf(ContextOverflowError);
    expect([first.promptTokens, first.limitTokens]).toEqual([210_000, 200_000]);
    const second = (await rejection(model.respond(request()))) as ContextOverflowError;
    expect(second).toBeInstanceOf(ContextOverflowError);
    expect([second.promptTokens, second.limitTokens]).toEqual([null, null]);
  });

  it('maps any other 400 to ModelError naming the status and the API message, without retrying', async () => {
    const api = await resources.server();
    api.enqueue({
      kind: 'error',
      status: 400,
      errorType: 'invalid_request_error',
      message: 'messages: roles must alternate between "user" and "assistant"',
    });
    const error = await rejection(chatModel(api, { maxRetries: 2 }).respond(request()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).not.toBeInstanceOf(ContextOverflowError);
    expect((error as ModelError).code).toBe('MODEL_FAILED');
    expect((error as ModelError).model).toBe(CHAT_MODEL);
    expect(error.message).toContain('HTTP 400 invalid_request_error');
    expect(error.message).toContain('roles must alternate');
    expect(api.requests).toHaveLength(1);
  });

  it('retries a 429 with retry-after 0 and returns the answer that follows', async () => {
    const api = await resources.server({ respond: () => ({ kind: 'text', text: 'Port 6379.' }) });
    api.enqueue({
      kind: 'error',
      status: 429,
      errorType: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your per-minute rate limit',
      headers: { 'retry-after': '0' },
    });
    const reply = await chatModel(api, { maxRetries: 2 }).respond(request());
    expect(reply.content).toEqual([{ type: 'text', text: 'Port 6379.' }]);
    expect(api.requests).toHaveLength(2);
    expect(api.requests[1]?.body).toEqual(api.requests[0]?.body);
  });

  it('gives up with ModelError when the 429s outlast the retries', async () => {
    const api = await resources.server({
      respond: () => ({
        kind: 'error',
        status: 429,
        errorType: 'rate_limit_error',
        message: 'rate limited',
        headers: { 'retry-after-ms': '1' },
      }),
    });
    const error = await rejection(chatModel(api, { maxRetries: 1 }).respond(request()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toContain('HTTP 429 rate_limit_error');
    expect(api.requests).toHaveLength(2);
  });

  it('maps a 200 with malformed JSON to ModelError', async () => {
    const api = await resources.server();
    api.enqueue({ kind: 'raw', status: 200, body: '{"id": "msg_1", "type": "message", "content": [' });
    const error = await rejection(chatModel(api).respond(request()));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe('MODEL_FAILED');
    expect(error.message).toContain(CHAT_MODEL);
    expect(error.message).toMatch(/malformed JSON|JSON/);
  });

  it('maps a hung request that outlasts timeoutMs to ModelError saying it timed out', async () => {
    const api = await resources.server();
    api.enqueue({ kind: 'hang' });
    const error = await rejection(chatModel(api, { timeoutMs: 200 }).respond(request()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toContain('timed out');
  });

  it('ends a response that sends its headers and then nothing after timeoutMs of silence, retries it, then says so', async () => {
    const api = await resources.server({ respond: () => ({ kind: 'stall', partialBody: '{"id": "msg_1", ' }) });
    const error = await rejection(chatModel(api, { timeoutMs: 300, maxRetries: 1 }).respond(request()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe(
      `The model ${CHAT_MODEL} could not answer: the request timed out: the API sent its response headers, then nothing for 0.3 s (2 attempts ended so).`,
    );
    expect(api.requests).toHaveLength(2);
    // Each silent response was closed, not left open: the server sees no request still pending.
    await until(() => api.pending === 0);
  });

  it('answers from the retry when only the first response went silent; a count of tokens is bounded the same way', async () => {
    const api = await resources.server();
    api.enqueue({ kind: 'stall' }, { kind: 'stall', route: 'count_tokens' });
    const model = chatModel(api, { timeoutMs: 300, maxRetries: 1 });
    const reply = await model.respond(request());
    expect(reply.content).toEqual([{ type: 'text', text: '(loopback) You said: Which port does the cache listen on?' }]);
    expect(await model.countTokens?.(request())).toBeGreaterThan(0);
    expect(api.requests.map((each) => each.route)).toEqual(['messages', 'messages', 'count_tokens', 'count_tokens']);
  });
});
