// What a model reply becomes in the ledger: the assistant turn (its content verbatim, the model that
// answered, the stop reason, usage and the context's size), and the error results that answer tool
// calls the turn will not run (a tool_use may never stay unanswered).

import type { AppendTurnInput } from '@agent-ledger/agents-ledger';
import { contentText, ModelError, type ToolResultBlock, type ToolUseBlock } from '@agent-ledger/core';
import type { ModelReply } from './chat-model.ts';

/** The assistant turn to append for a reply; ModelError for a reply with no content (nothing to record). */
export function replyTurnInput(reply: ModelReply, contextTokens: number): AppendTurnInput {
  if (reply.content.length === 0) {
    throw new ModelError(
      `The model ${reply.model} answered with no content (stop reason ${reply.stopReason}); nothing was recorded for it.`,
      reply.model,
    );
  }
  return {
    role: 'assistant',
    content: reply.content,
    model: reply.model,
    metadata: { stopReason: reply.stopReason, usage: reply.usage, contextTokens },
  };
}

/** The tools the reply asks to run, in order. */
export function toolCalls(reply: ModelReply): ToolUseBlock[] {
  return reply.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

/** The reply's text, tool calls left out. */
export function replyText(reply: ModelReply): string {
  return contentText(reply.content.filter((block) => block.type === 'text'));
}

/** Error results for calls made after the turn's tool rounds were used up. */
export function refusedResults(calls: readonly ToolUseBlock[], maxToolRounds: number): ToolResultBlock[] {
  return calls.map((call) => ({
    type: 'tool_result',
    tool_use_id: call.id,
    content: `Not run: this turn used its ${maxToolRounds} tool rounds.`,
    is_error: true,
  }));
}
