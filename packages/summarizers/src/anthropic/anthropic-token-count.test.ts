// The count-tokens call on the real SDK against the loopback Messages API: the count it returns,
// what it sends, and the SDK's own error when the API cannot answer.

import { type LoopbackApi, startLoopbackApi } from '@agent-ledger/loopback-api';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicTokenCount } from './anthropic-token-count.ts';

let api: LoopbackApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function loopback(): Promise<LoopbackApi> {
  api = await startLoopbackApi();
  return api;
}

const MESSAGES: Anthropic.MessageParam[] = [
  { role: 'user', content: 'Which port does the ledger database listen on?' },
  { role: 'assistant', content: 'Port 5432 on db-3.' },
  { role: 'user', content: 'And the config path?' },
];

describe('createAnthropicTokenCount', () => {
  it("returns the server's input_tokens for the request", async () => {
    const server = await loopback();
    const countTokens = createAnthropicTokenCount({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
    const counted = await countTokens({ model: 'claude-count-test', messages: MESSAGES });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.route).toBe('count_tokens');
    expect(counted).toBe(server.requests[0]?.inputTokens);
    expect(counted).toBe(Math.ceil(MESSAGES.map((message) => message.content).join('\n').length / 4));
  });

  it('sends the model and messages, and system and tools only when given', async () => {
    const server = await loopback();
    const countTokens = createAnthropicTokenCount({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
    const tool: Anthropic.Tool = {
      name: 'read_file',
      description: 'Reads a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
    };
    const bare = await countTokens({ model: 'claude-count-test', messages: MESSAGES });
    const full = await countTokens({
      model: 'claude-count-test',
      system: 'You run the ledger.',
      messages: MESSAGES,
      tools: [tool],
    });

    const [first, second] = server.requests;
    expect(first?.body).toEqual({ model: 'claude-count-test', messages: MESSAGES });
    expect(second?.body).toEqual({
      model: 'claude-count-test',
      messages: MESSAGES,
      system: 'You run the ledger.',
      tools: [tool],
    });
    expect(full).toBeGreaterThan(bare);
    expect(full).toBe(second?.inputTokens);
  });

  it("rejects with the SDK's error when 500s outlast the retries", async () => {
    const server = await loopback();
    const failure = {
      route: 'count_tokens',
      kind: 'error',
      status: 500,
      errorType: 'api_error',
      message: 'count failed',
    } as const;
    server.enqueue({ ...failure, headers: { 'retry-after': '0' } }, failure);
    const countTokens = createAnthropicTokenCount({ apiKey: 'test-key', baseURL: server.url, maxRetries: 1 });
    const promise = countTokens({ model: 'claude-count-test', messages: MESSAGES });
    await expect(promise).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    await expect(promise).rejects.toMatchObject({ status: 500 });
    expect(server.requests).toHaveLength(2);
  });
});
