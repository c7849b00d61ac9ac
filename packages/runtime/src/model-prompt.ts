// Building one model request: the ledger's context at the session's head as it stands (the hybrid
// one: retrieval for the incoming message, then the summary or topics and recent turns) within a
// budget, and the request around it (system prompt, tool definitions, tool choice).

import type { AgentsLedger, BuiltContext, RetrievalPolicy } from '@agent-ledger/agents-ledger';
import { type InvalidInputError, LedgerError, type Session } from '@agent-ledger/core';
import type { ModelRequest, ToolDefinition } from './chat-model.ts';
import { doesNotFit } from './runtime-errors.ts';
import type { TurnResult } from './runtime-types.ts';

/** `none`: past the last tool round the tools stay defined, but the model has to answer. */
export type ToolChoice = 'auto' | 'none';

/** What every prompt of a runtime is built with. */
export interface PromptSettings {
  ledger: AgentsLedger;
  retrieval: boolean | RetrievalPolicy;
  tools: ToolDefinition[];
  /** The tool definitions' estimated tokens (named when the budget holds not even the newest message). */
  toolTokens: number;
  systemPrompt?: string;
}

export interface PromptInput {
  sessionId: string;
  budgetTokens: number;
  /** What to retrieve and rank topics by. */
  query: string;
  toolChoice: ToolChoice;
  signal?: AbortSignal;
}

/** A request ready to send, with what it was built from. */
export interface Prompt {
  /** The session as it stood when the context was built. */
  session: Session;
  head: string;
  budgetTokens: number;
  context: BuiltContext;
  request: ModelRequest;
}

/** What a turn's result says about the context its last model call was given. */
export type ContextSummary = TurnResult['context'];

export async function buildPrompt(settings: PromptSettings, input: PromptInput): Promise<Prompt> {
  const { ledger, systemPrompt } = settings;
  const { budgetTokens } = input;
  const session = await ledger.getSession(input.sessionId);
  const head = session.headTurnId as string;
  let context: BuiltContext;
  try {
    context = await ledger.buildContext(head, {
      budgetTokens,
      query: input.query,
      retrieval: settings.retrieval,
      ...(systemPrompt ? { systemPrompt } : {}),
    });
  } catch (error) {
    // The budget holds not even the newest message alone: said in the runtime's terms (window,
    // reserve, tools), not the library's budgetTokens.
    if (LedgerError.isInstance(error) && error.code === 'INVALID_INPUT' && (error as InvalidInputError).field === 'budgetTokens')
      throw doesNotFit({ budgetTokens, head, session, toolTokens: settings.toolTokens, cause: error as InvalidInputError });
    throw error;
  }
  const request: ModelRequest = {
    system: context.system,
    messages: context.messages,
    tools: settings.tools,
    toolChoice: input.toolChoice,
    ...(input.signal ? { signal: input.signal } : {}),
  };
  return { session, head, budgetTokens, context, request };
}

export function contextSummary(prompt: Prompt): ContextSummary {
  const { context } = prompt;
  return {
    tokens: context.tokens,
    budgetTokens: prompt.budgetTokens,
    compactionTurnId: context.compactionTurnId,
    retrievedTurnIds: context.retrievedTurnIds,
    messages: context.messages.length,
  };
}
