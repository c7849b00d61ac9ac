// A chat runtime on the ledgers. `runTurn` records what arrived (the inbound event, when it came
// from a channel, and the user turn citing it), builds the context (by default the hybrid one:
// retrieval for the incoming message, then the summary or topics and recent turns), calls the model,
// records every reply turn (tool calls and their results included), and hands compaction to the
// scheduler, which runs it off the critical path. When the API says the prompt is too long it
// compacts once (trigger `overflow`) and retries; a second overflow fails with every turn kept.
//
// The parts: run-turn.ts (what arrived), answer.ts (one answer), tool-loop.ts (the model and its
// tools), overflow-step.ts (one model call and its recovery), model-prompt.ts (the request).

import type { BuiltContext } from '@agent-ledger/agents-ledger';
import { InvalidInputError } from '@agent-ledger/core';
import { respond, runTurn } from './run-turn.ts';
import { createRuntimeParts, type RuntimeParts, sessionBudget } from './runtime-parts.ts';
import type { ChatRuntime, ChatRuntimeOptions } from './runtime-types.ts';

export function createChatRuntime(options: ChatRuntimeOptions): ChatRuntime {
  const parts = createRuntimeParts(options);
  const { scheduler } = parts;
  return {
    runTurn: (sessionId, input, turnOptions) => runTurn(parts, sessionId, input, turnOptions),
    respond: (sessionId, turnOptions) => respond(parts, sessionId, turnOptions),
    compact: (sessionId, compactOptions = {}) => scheduler.compactNow(sessionId, 'manual', compactOptions.instructions),
    contextFor: (sessionId, contextOptions = {}) => contextFor(parts, sessionId, contextOptions.query),
    compactionInFlight: (sessionId) => scheduler.running(sessionId) !== undefined,
    idle: (sessionId) => scheduler.idle(sessionId),
    tools: parts.toolbox.definitions,
    overheadTokens: parts.toolTokens + parts.systemTokens,
  };
}

/** The context the next model call would get, at the session's head, for `query` (none: the plain one). */
async function contextFor(parts: RuntimeParts, sessionId: string, query?: string): Promise<BuiltContext> {
  const { ledger, options } = parts;
  const session = await ledger.getSession(sessionId);
  if (!session.headTurnId) throw new InvalidInputError(`Session ${sessionId} has no turns yet.`, 'sessionId');
  return ledger.buildContext(session.headTurnId, {
    budgetTokens: sessionBudget(parts, session.settings),
    ...(query ? { query, retrieval: parts.retrieval } : {}),
    ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
  });
}
