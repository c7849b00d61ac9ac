// Exact input-token counts from the API's count-tokens endpoint, for a runtime that wants to know
// before sending whether a context fits the model's window. The ledger's synchronous estimate stays
// the default everywhere else (it runs on every append); this is the check where a key is available.

import type Anthropic from '@anthropic-ai/sdk';
import { type AnthropicClientOptions, createAnthropicClient } from './anthropic-client.ts';
import { silenceLimit } from './silence-limit.ts';

export interface CountableRequest {
  model: string;
  system?: string;
  messages: Anthropic.MessageParam[];
  tools?: Anthropic.Tool[];
}

export type CountTokens = (request: CountableRequest) => Promise<number>;

/** `POST /v1/messages/count_tokens`; rejects with the SDK's error when the API cannot answer. */
export function createAnthropicTokenCount(options: AnthropicClientOptions = {}): CountTokens {
  const client = createAnthropicClient(options);
  return async (request) => {
    const counted = await client.messages.countTokens(
      {
        model: request.model,
        messages: request.messages,
        ...(request.system ? { system: request.system } : {}),
        ...(request.tools ? { tools: request.tools } : {}),
      },
      { middleware: [silenceLimit(client.timeout).middleware] },
    );
    return counted.input_tokens;
  };
}
