// The Messages API's rules for the shape of `messages`, checked as strictly as the API checks
// them, with its own wording: the loopback server refuses a request that breaks one (400
// invalid_request_error), so a test proves a context is sendable rather than assuming it.

import type { ApiContentBlock, ApiMessage } from './api-types.ts';

/** Every rule the messages break, as the API would word it; empty when the request is valid. */
export function messagesProblems(messages: readonly ApiMessage[]): string[] {
  const problems: string[] = [];
  if (messages.length === 0) problems.push('messages: at least one message is required');
  if (messages[0] && messages[0].role !== 'user') problems.push('messages.0: the first message must use the "user" role');
  messages.forEach((message, index) => {
    const blocks = blocksOf(message);
    const previous = messages[index - 1];
    if (previous && previous.role === message.role) {
      problems.push(`messages.${index}: roles must alternate between "user" and "assistant"`);
    }
    if (blocks.length === 0) problems.push(`messages.${index}: all messages must have non-empty content`);
    blocks.forEach((block, position) => {
      if (block.type === 'text' && block.text === '') {
        problems.push(`messages.${index}.content.${position}.text: text content blocks must be non-empty`);
      }
    });
    const results = blocks.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : []));
    if (results.length > 0) checkResults(problems, { index, message, blocks, previous });
    const calls = blocks.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    const repeated = calls.filter((id, position) => calls.indexOf(id) !== position);
    if (repeated.length > 0)
      problems.push(`messages.${index}: \`tool_use\` ids must be unique: ${[...new Set(repeated)].join(', ')}`);
    if (calls.length > 0) {
      if (message.role !== 'assistant') problems.push(`messages.${index}: tool_use blocks can only be in assistant messages`);
      const next = messages[index + 1];
      const answered = new Set(
        next ? blocksOf(next).flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : [])) : [],
      );
      const unanswered = calls.filter((id) => !answered.has(id));
      if (unanswered.length > 0) {
        problems.push(
          `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. ` +
            'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
        );
      }
    }
  });
  return problems;
}

/** One message in its place: its index, its content as blocks, and the message before it. */
interface MessageInPlace {
  index: number;
  message: ApiMessage;
  blocks: readonly ApiContentBlock[];
  previous: ApiMessage | undefined;
}

/** The rules for a message's tool_result blocks: a user's, answering the previous tool_use ids, first. */
function checkResults(problems: string[], { index, message, blocks, previous }: MessageInPlace): void {
  if (message.role !== 'user') {
    problems.push(`messages.${index}: tool_result blocks can only be in user messages`);
    return;
  }
  const asked = new Set(previous ? blocksOf(previous).flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])) : []);
  const seen = new Set<string>();
  let otherBlockSeen = false;
  blocks.forEach((block, position) => {
    if (block.type !== 'tool_result') {
      otherBlockSeen = true;
      return;
    }
    const where = `messages.${index}.content.${position}`;
    if (!asked.has(block.tool_use_id)) {
      problems.push(
        `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. ` +
          'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      );
    }
    if (seen.has(block.tool_use_id)) problems.push(`${where}: each tool_use can only have one tool_result: ${block.tool_use_id}`);
    seen.add(block.tool_use_id);
    if (otherBlockSeen) problems.push(`${where}: tool_result blocks must come first in the content, before any other block`);
  });
}

function blocksOf(message: ApiMessage): ApiContentBlock[] {
  if (typeof message.content === 'string') return message.content === '' ? [] : [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}
