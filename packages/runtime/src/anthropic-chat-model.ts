// The chat model on the real Anthropic SDK. It sends the ledger's context as it is (the ledger stores
// Messages API blocks verbatim) and turns the API's "prompt is too long" answer into
// ContextOverflowError, every other failure that outlasts the SDK's retries into ModelError. The
// client's timeout bounds each attempt's silence too (silence-limit.ts), not only the wait for headers.

import { type ContentBlock, ContextOverflowError, ModelError } from '@agent-ledger/core';
import { overflowFromMessage } from '@agent-ledger/runtime-kit';
import { type AnthropicClientOptions, createAnthropicClient, describeApiFailure, silenceLimit } from '@agent-ledger/summarizers';
import Anthropic from '@anthropic-ai/sdk';
import type { ChatModel, ModelReply, ModelRequest } from './chat-model.ts';

export const DEFAULT_CHAT_MODEL = 'claude-sonnet-4-6';

export interface AnthropicChatModelOptions extends AnthropicClientOptions {
  /** `NEXUS_CHAT_MODEL`, else claude-sonnet-4-6. */
  model?: string;
  /** Longest reply, in tokens (default 1024). */
  maxTokens?: number;
}

export function createAnthropicChatModel(options: AnthropicChatModelOptions = {}): ChatModel {
  const client = createAnthropicClient(options);
  const model = options.model ?? process.env.NEXUS_CHAT_MODEL ?? DEFAULT_CHAT_MODEL;
  const maxTokens = options.maxTokens ?? 1024;
  // The same limit as the wait for headers: `--timeout 2` means no more than 2 s without a byte.
  const limitMs = client.timeout;
  return {
    name: model,
    label: `Anthropic ${model}`,
    async respond(request: ModelRequest): Promise<ModelReply> {
      const silence = silenceLimit(limitMs);
      try {
        const message = await client.messages.create(
          {
            model,
            max_tokens: maxTokens,
            ...(request.system ? { system: request.system } : {}),
            messages: request.messages as Anthropic.MessageParam[],
            ...(request.tools.length > 0 ? { tools: request.tools as Anthropic.Tool[] } : {}),
            ...(request.tools.length > 0 && request.toolChoice === 'none' ? { tool_choice: { type: 'none' as const } } : {}),
          },
          { middleware: [silence.middleware], ...(request.signal ? { signal: request.signal } : {}) },
        );
        const content = (Array.isArray(message.content) ? message.content : []).flatMap(toLedgerBlock);
        return {
          content,
          stopReason: message.stop_reason ?? null,
          model: message.model ?? model,
          usage: { inputTokens: message.usage?.input_tokens ?? 0, outputTokens: message.usage?.output_tokens ?? 0 },
        };
      } catch (error) {
        throw asModelFailure(error, model, { silentAttempts: silence.silentAttempts, limitMs });
      }
    },
    async countTokens(request: ModelRequest): Promise<number> {
      const silence = silenceLimit(limitMs);
      try {
        const counted = await client.messages.countTokens(
          {
            model,
            ...(request.system ? { system: request.system } : {}),
            messages: request.messages as Anthropic.MessageParam[],
            ...(request.tools.length > 0 ? { tools: request.tools as Anthropic.Tool[] } : {}),
          },
          { middleware: [silence.middleware] },
        );
        return counted.input_tokens;
      } catch (error) {
        throw asModelFailure(error, model, { silentAttempts: silence.silentAttempts, limitMs });
      }
    },
  };
}

/** The blocks the ledger keeps; thinking and server-tool blocks are not part of the transcript. */
function toLedgerBlock(block: Anthropic.ContentBlock): ContentBlock[] {
  if (block.type === 'text') return [{ type: 'text', text: block.text }];
  if (block.type === 'tool_use') return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
  return [];
}

/** What the request's silence limit saw: attempts it ended, and after how long. */
export interface SilenceSeen {
  silentAttempts: number;
  limitMs: number;
}

export function asModelFailure(error: unknown, model: string, silence?: SilenceSeen): Error {
  if (error instanceof Anthropic.APIError && (error.status === 400 || error.status === 413)) {
    const detail = describeApiFailure(error);
    // The API's wording: "prompt is too long: 210000 tokens > 200000 maximum".
    const figures = overflowFromMessage(detail);
    if (figures) {
      return new ContextOverflowError(
        `The prompt is too long for ${model} (${detail}).`,
        figures.promptTokens,
        figures.limitTokens,
        { cause: error },
      );
    }
  }
  return new ModelError(`The model ${model} could not answer: ${failureDetail(error, silence)}.`, model, { cause: error });
}

/** The SDK's words for a failure, except a timeout that was a silent response, which it cannot tell apart. */
function failureDetail(error: unknown, silence: SilenceSeen | undefined): string {
  if (error instanceof Anthropic.APIConnectionTimeoutError && silence && silence.silentAttempts > 0) {
    const seconds = Number((silence.limitMs / 1000).toFixed(1));
    return (
      `the request timed out: the API sent its response headers, then nothing for ${seconds} s ` +
      `(${silence.silentAttempts === 1 ? 'one attempt' : `${silence.silentAttempts} attempts`} ended so)`
    );
  }
  return describeApiFailure(error);
}
