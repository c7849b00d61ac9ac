// Makes a list of messages obey the Messages API's tool rule, whatever the ledger stored: every
// tool_use of an assistant message is answered by a tool_result in the user message right after
// it, results come first in that message, and no result stands anywhere else. A crash between a
// tool call and its result, or a user who wrote on after a call that never got its answer, would
// otherwise leave a session the API refuses on every later request. Pure: it only rewrites the
// messages sent; the stored turns are untouched (doctor reports the dangling calls).

import {
  type ContentBlock,
  type Message,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResultText,
} from '@agent-ledger/core';

/** The text of the result that stands in for a call that was never answered. */
export const INTERRUPTED_TOOL_RESULT =
  'Interrupted: this tool call was never answered (the run stopped before its result was recorded). Its effect is unknown.';

/**
 * Pairs every tool_use with exactly one tool_result immediately after it: a missing result becomes
 * a synthetic `is_error` one, a result that answers no call of the message before it (an orphan, a
 * second result for one id, a result arriving after other messages) becomes plain text, and the
 * results move to the front of their message.
 */
export function pairToolCalls(messages: readonly Message[]): Message[] {
  const paired: Message[] = [];
  let openCalls: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      // A call in a user message (stored before append refused them) is read as text.
      const content = message.content.map((block) => (block.type === 'tool_use' ? callAsText(block) : block));
      paired.push({ role: 'user', content: answerCalls(content, openCalls) });
      openCalls = [];
      continue;
    }
    if (openCalls.length > 0) paired.push({ role: 'user', content: answerCalls([], openCalls) });
    // A result never stands in an assistant message, and a call id is used once per message.
    const seen = new Set<string>();
    const content = message.content.map((block) => {
      if (block.type === 'tool_result') return resultAsText(block);
      if (block.type !== 'tool_use') return block;
      if (seen.has(block.id)) return callAsText(block);
      seen.add(block.id);
      return block;
    });
    paired.push({ role: 'assistant', content });
    openCalls = [...seen];
  }
  if (openCalls.length > 0) paired.push({ role: 'user', content: answerCalls([], openCalls) });
  return paired;
}

/** The user message that follows a call-making message: one result per open call, first. */
function answerCalls(content: readonly ContentBlock[], openCalls: readonly string[]): ContentBlock[] {
  const open = new Set(openCalls);
  const results = new Map<string, ToolResultBlock>();
  const rest: ContentBlock[] = [];
  for (const block of content) {
    if (block.type === 'tool_result' && open.has(block.tool_use_id) && !results.has(block.tool_use_id)) {
      results.set(block.tool_use_id, block);
    } else if (block.type === 'tool_result') {
      rest.push(resultAsText(block));
    } else {
      rest.push(block);
    }
  }
  const answered = openCalls.map(
    (id): ToolResultBlock =>
      results.get(id) ?? { type: 'tool_result', tool_use_id: id, content: INTERRUPTED_TOOL_RESULT, is_error: true },
  );
  return [...answered, ...rest];
}

function callAsText(block: ToolUseBlock): TextBlock {
  return { type: 'text', text: `[tool call ${block.name} ${block.id}] ${JSON.stringify(block.input) ?? ''}`.trimEnd() };
}

/** A result the API would refuse where it stands, kept as text so its content is still read. */
function resultAsText(block: ToolResultBlock): TextBlock {
  return { type: 'text', text: `[result of tool call ${block.tool_use_id}] ${toolResultText(block)}`.trimEnd() };
}
