// A JSON file holding a Messages API conversation: an Anthropic request body ({model, system,
// messages}), an OpenAI chat body ({messages} with tool_calls and role "tool"), or a bare array of
// such messages. Read whole (these files are request-sized); each message is one turn, its index
// (or its own `id`) its line id, so a file that grows imports only its new messages.

import { createHash } from 'node:crypto';
import path from 'node:path';
import { type ContentBlock, InvalidInputError } from '@agent-ledger/core';
import { sessionLabel, type TranscriptEntry, timeOf } from '../transcript-entry.ts';
import { toBlocks } from './claude-code.ts';

type Json = Record<string, unknown>;

/** True for a parsed JSON value that holds a messages list (and is not nexus-eval/v1). */
export function isMessagesJson(value: unknown): boolean {
  const list = Array.isArray(value) ? value : (value as Json | null)?.messages;
  return Array.isArray(list) && (value as Json).format !== 'nexus-eval/v1';
}

export function* messagesEntries(value: unknown, origin: { path: string }): Generator<TranscriptEntry> {
  const body = (Array.isArray(value) ? { messages: value } : value) as Json;
  const messages = body.messages as unknown[];
  if (!Array.isArray(messages)) {
    throw new InvalidInputError(`${origin.path}: expected a "messages" array (see docs/import-export.md).`, 'messages');
  }
  // The first message names the conversation: the same file, grown, is found again wherever it lies.
  const identity =
    typeof body.id === 'string'
      ? body.id
      : createHash('sha256')
          .update(JSON.stringify(messages[0] ?? null))
          .digest('hex')
          .slice(0, 16);
  yield {
    kind: 'session',
    key: `messages:${identity}`,
    label: sessionLabel(
      'messages',
      origin.path === '-' ? 'stdin' : path.basename(origin.path),
      undefined,
      typeof body.model === 'string' ? body.model : undefined,
    ),
  };
  for (const [index, item] of messages.entries()) {
    const message = (item ?? {}) as Json;
    const base = { lineIds: [typeof message.id === 'string' ? message.id : `m${index}`], line: index + 1 };
    const timestamp = timeOf(message.timestamp);
    const blocks = blocksOf(message);
    if (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'tool') {
      if (message.role !== 'system' && message.role !== 'developer') {
        yield {
          kind: 'problem',
          line: index + 1,
          message: `messages[${index}].role must be user, assistant or tool; got ${JSON.stringify(message.role)}`,
        };
      }
      continue;
    }
    if (blocks.length === 0) {
      yield { kind: 'skip', ...base };
      continue;
    }
    yield {
      kind: 'turn',
      role: message.role === 'assistant' ? 'assistant' : 'user',
      content: blocks,
      ...base,
      ...(timestamp === undefined ? {} : { timestamp }),
      ...(typeof body.model === 'string' && message.role === 'assistant' ? { model: body.model } : {}),
    };
  }
}

function blocksOf(message: Json): ContentBlock[] {
  if (message.role === 'tool') {
    const content = typeof message.content === 'string' ? message.content : textOf(message.content);
    return [{ type: 'tool_result', tool_use_id: String(message.tool_call_id ?? ''), content }];
  }
  const content = Array.isArray(message.content)
    ? toBlocks(
        (message.content as Json[]).map((part) =>
          part?.type === 'input_text' || part?.type === 'output_text' ? { ...part, type: 'text' } : part,
        ),
      )
    : toBlocks(message.content);
  for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : []) {
    const fn = (call.function ?? {}) as Json;
    let input: unknown = fn.arguments ?? {};
    if (typeof fn.arguments === 'string') {
      try {
        input = JSON.parse(fn.arguments);
      } catch {
        input = { arguments: fn.arguments };
      }
    }
    content.push({ type: 'tool_use', id: String(call.id ?? ''), name: String(fn.name ?? 'function'), input });
  }
  return content;
}

function textOf(content: unknown): string {
  return toBlocks(content)
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n');
}
