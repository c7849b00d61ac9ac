// The runtime's public shapes: its options, what runTurn takes and returns, and the runtime itself.

import type { AgentsLedger, BuiltContext, RetrievalPolicy } from '@agent-ledger/agents-ledger';
import type { CompactionTurn, ContentBlock, NormalTurn } from '@agent-ledger/core';
import type { EventsLedger } from '@agent-ledger/events-ledger';
import type { CompactionNotice, CompactionPolicy, OverflowDoubt, WindowLearnedNotice } from '@agent-ledger/runtime-kit';
import type { ChatModel, ToolDefinition } from './chat-model.ts';

export interface RuntimeTool {
  definition: ToolDefinition;
  /** Returns the tool_result text; a thrown error becomes an `is_error` result the model can read. */
  /** `turnIds`: the turns this runTurn has appended so far (the question, earlier tool rounds). */
  run(
    input: unknown,
    context: { sessionId: string; turnIds: readonly string[] },
  ): Promise<{ content: string; isError?: boolean }>;
}

export type RuntimeNotice =
  | CompactionNotice
  | { type: 'tool-call'; sessionId: string; name: string; input: unknown; isError: boolean }
  /** A "prompt is too long" taught the session its real window, or an answered prompt undid that; its settings were rescaled. */
  | WindowLearnedNotice
  | OverflowDoubtedNotice;

/** A "prompt is too long" contradicted what the model had accepted: nothing was learned, the prompt is sent again as it was. */
export interface OverflowDoubtedNotice {
  type: 'overflow-doubted';
  sessionId: string;
  doubt: OverflowDoubt;
}

export interface ChatRuntimeOptions {
  ledger: AgentsLedger;
  /** Where inbound channel messages are recorded; required to pass `inbound` to runTurn. */
  events?: EventsLedger;
  model: ChatModel;
  systemPrompt?: string;
  /** Tools beside the recall tool. */
  tools?: RuntimeTool[];
  /** Register `search_history` over the whole history (default true). */
  recallTool?: boolean;
  /** The hybrid context's retrieval (default true: the ledger's default policy); false for summary + recent turns only. */
  retrieval?: boolean | RetrievalPolicy;
  compaction?: CompactionPolicy;
  /** Model calls per turn before the model must answer without tools (default 8). */
  maxToolRounds?: number;
  /**
   * Count each prompt's exact tokens with the model's count-tokens endpoint before sending it, and
   * recover from an overflow there rather than from a failed request (default false: one more API
   * call per model call). Needs a model with `countTokens`.
   */
  countTokensBeforeSending?: boolean;
  onNotice?: (notice: RuntimeNotice) => void;
}

export interface InboundMessage {
  channel: string;
  /** The channel's own message id: a redelivered message is recognised and not answered twice. */
  externalId: string;
  author?: string;
  occurredAt?: number | string;
}

export interface RunTurnOptions {
  /** Another model for this turn only. */
  model?: ChatModel;
  /** The message came from a channel: record it as an event first and cite it from the user turn. */
  inbound?: InboundMessage;
  /** What to retrieve and rank topics by; the incoming message by default. */
  query?: string;
  signal?: AbortSignal;
}

export interface TurnResult {
  sessionId: string;
  /** The user turn (for a redelivered message, the turn that already answered it). */
  userTurn: NormalTurn;
  /** The final assistant turn; null for a redelivered message. */
  reply: NormalTurn | null;
  /** The reply's text. */
  text: string;
  /** Every turn this call appended, in order (user, tool calls and results, reply). */
  turns: NormalTurn[];
  eventId: string | null;
  /** True when the inbound event was already recorded and answered: nothing was appended. */
  duplicate: boolean;
  /** The context the last model call was given. */
  context: {
    tokens: number;
    budgetTokens: number;
    compactionTurnId: string | null;
    retrievedTurnIds: string[];
    messages: number;
  };
  /** The compaction written to recover from an overflow, if one was. */
  overflowCompaction: CompactionTurn | null;
  usage: { inputTokens: number; outputTokens: number };
  modelCalls: number;
}

export interface ChatRuntime {
  runTurn(sessionId: string, input: string | ContentBlock[], options?: RunTurnOptions): Promise<TurnResult>;
  /** Answers the session's head as it stands (after a runTurn whose model call failed), appending no user turn. */
  respond(sessionId: string, options?: Omit<RunTurnOptions, 'inbound'>): Promise<TurnResult>;
  /** Compacts now and waits (manual, with optional instructions). */
  compact(sessionId: string, options?: { instructions?: string }): Promise<CompactionTurn>;
  /**
   * The context the next model call would get: the same budget, retrieval and system prompt as
   * runTurn, at the session's head, for `query` (the incoming message; none shows the plain one).
   */
  contextFor(sessionId: string, options?: { query?: string }): Promise<BuiltContext>;
  /** The background compaction running for a session, if any. */
  compactionInFlight(sessionId: string): boolean;
  /** Waits for background compactions (call before closing the ledger). */
  idle(sessionId?: string): Promise<void>;
  readonly tools: ToolDefinition[];
  /** Tokens every prompt carries beside the ledger's context (tool definitions, system prompt). */
  readonly overheadTokens: number;
}
