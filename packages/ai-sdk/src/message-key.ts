// Which of the prompt's messages the ledger already holds. The AI SDK sends the whole prompt on
// every call and every step of a tool loop, in its own shapes, and the ledger stores Messages API
// blocks; a message is recognised by what survives both: its role, its words (whitespace folded,
// so a reply streamed in pieces matches the one message it becomes) and its tool call and result ids.

import { createHash } from 'node:crypto';
import type { ContentBlock, Role } from '@agent-ledger/core';

export function messageKey(role: Role, content: readonly ContentBlock[]): string {
  const words: string[] = [];
  const calls: string[] = [];
  const results: string[] = [];
  for (const block of content) {
    if (block.type === 'text') words.push(block.text);
    else if (block.type === 'tool_use') calls.push(block.id);
    else results.push(block.tool_use_id);
  }
  const text = words.join(' ').replace(/\s+/g, ' ').trim();
  return createHash('sha1')
    .update(JSON.stringify([role, text, calls, results]))
    .digest('base64url')
    .slice(0, 16);
}
