export type { CompactionNotice, CompactionPolicy } from '@agent-ledger/runtime-kit';
export { DEFAULT_RUNTIME_RETRIEVAL } from '@agent-ledger/runtime-kit';
export type { AnthropicChatModelOptions } from './anthropic-chat-model.ts';
export { asModelFailure, createAnthropicChatModel, DEFAULT_CHAT_MODEL } from './anthropic-chat-model.ts';
export type { ChatModel, ModelReply, ModelRequest, ToolDefinition } from './chat-model.ts';
export { createChatRuntime } from './chat-runtime.ts';
export type { OfflineChatModelOptions } from './offline-chat-model.ts';
export { createOfflineChatModel, OFFLINE_MODEL_NAME } from './offline-chat-model.ts';
export type {
  ChatRuntime,
  ChatRuntimeOptions,
  InboundMessage,
  RunTurnOptions,
  RuntimeNotice,
  RuntimeTool,
  TurnResult,
} from './runtime-types.ts';
