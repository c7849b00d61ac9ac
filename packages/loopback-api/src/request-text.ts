// What the loopback server reads of a request's text: the four-characters-a-token estimate it counts
// prompts with, and the words a responder usually answers.

import type { ApiMessage, MessagesRequestBody } from './api-types.ts';

/** The server's token estimate: about four characters per token, like the API's rough rule. */
export function estimateApiTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function requestText(body: Pick<MessagesRequestBody, 'system' | 'messages' | 'tools'>): string {
  const parts: string[] = [];
  if (typeof body.system === 'string') parts.push(body.system);
  else for (const block of body.system ?? []) parts.push(block.text);
  for (const message of body.messages ?? []) parts.push(messageText(message));
  for (const tool of body.tools ?? []) parts.push(JSON.stringify(tool));
  return parts.join('\n');
}

export function messageText(message: ApiMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => {
      if (block.type === 'text') return block.text;
      if (block.type === 'tool_use') return JSON.stringify(block.input);
      if (typeof block.content === 'string') return block.content;
      return (block.content ?? []).map((inner) => inner.text).join('\n');
    })
    .join('\n');
}

/** The last user message's text: what a responder usually answers. */
export function lastUserText(body: MessagesRequestBody): string {
  const last = [...body.messages].reverse().find((message) => message.role === 'user');
  return last ? messageText(last) : '';
}
