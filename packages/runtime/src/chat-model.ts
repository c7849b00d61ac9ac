// The seam between the runtime and a model: one request in, one reply out, in the Messages API's
// shapes (the ledger stores those blocks verbatim). The Anthropic model and the offline model both
// implement it; a model signals "the prompt is too long" with ContextOverflowError so the runtime
// can compact and retry without knowing any provider's error format.

import type { ContentBlock, Message } from '@agent-ledger/core';

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ToolDefinition[];
  /** `none`: the tools stay defined (earlier tool blocks need them) but the model must answer in text. */
  toolChoice?: 'auto' | 'none';
  signal?: AbortSignal;
}

export interface ModelReply {
  content: ContentBlock[];
  /** `end_turn`, `tool_use`, `max_tokens`, … as the API says. */
  stopReason: string | null;
  /** The model that answered (the API may resolve an alias). */
  model: string;
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * Contract: `respond` resolves with the model's reply, or rejects with ContextOverflowError when the
 * prompt does not fit the model's window and ModelError for any other failure.
 */
export interface ChatModel {
  readonly name: string;
  /** Shown to people (the chat banner) so an offline model is never mistaken for a real one. */
  readonly label: string;
  respond(request: ModelRequest): Promise<ModelReply>;
  /** The prompt's exact input tokens as the model counts them, when the provider can say (count-tokens). */
  countTokens?(request: ModelRequest): Promise<number>;
}
