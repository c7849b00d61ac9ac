// Reads conversation files in the `nexus-eval/v1` format (see docs/api.md, "Importing a conversation"): a list of messages
// with ids, roles and timestamps, and optional questions. Bad files get an error that names the
// field, before anything is imported. Message content is checked by the importer's own rules
// (message-content.ts): an empty message passes, and is skipped on import.

import { type ContentBlock, InvalidInputError, toolResultIds, toolUseIds } from '@agent-ledger/core';
import { RESULT_LOOKBACK_TURNS } from '../append-turn.ts';
import { importableContent } from './message-content.ts';

export interface ConversationMessage {
  id: string;
  role: 'user' | 'assistant';
  author?: string;
  /** A string, or Anthropic content blocks (tool_use / tool_result exchanges). */
  content: string | ContentBlock[];
  /** ISO 8601 or null. */
  timestamp: string | null;
}

export interface ConversationQuestion {
  id: string;
  question: string;
  answer: string | null;
  evidence: string[];
  category?: string;
  askedAt?: string;
  evidenceLevel?: 'turn' | 'session';
}

export interface Conversation {
  format: 'nexus-eval/v1';
  id: string;
  source?: string;
  license?: string;
  messages: ConversationMessage[];
  questions: ConversationQuestion[];
}

export function parseConversation(json: string, origin = 'conversation'): Conversation {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new InvalidInputError(`${origin} is not valid JSON: ${(error as Error).message}`);
  }
  return validateConversation(value, origin);
}

export function validateConversation(value: unknown, origin = 'conversation'): Conversation {
  const fail = (message: string, field?: string): never => {
    throw new InvalidInputError(`${origin}: ${message}`, field);
  };
  if (typeof value !== 'object' || value === null) return fail('expected a JSON object.');
  const record = value as Record<string, unknown>;
  if (record.format !== 'nexus-eval/v1')
    fail(`"format" must be "nexus-eval/v1", got ${JSON.stringify(record.format)}.`, 'format');
  if (!Array.isArray(record.messages)) return fail('"messages" must be an array.', 'messages');
  const seen = new Set<string>();
  /** The messages that will become turns, oldest first, for append's one-result-per-call rule. */
  const imported: Array<{ where: string; blocks: ContentBlock[] }> = [];
  for (const [index, message] of (record.messages as unknown[]).entries()) {
    const where = `messages[${index}]`;
    if (typeof message !== 'object' || message === null) fail(`${where} must be an object.`, where);
    const item = message as Record<string, unknown>;
    if (typeof item.id !== 'string' || item.id === '') fail(`${where}.id must be a non-empty string.`, where);
    if (seen.has(item.id as string)) fail(`${where}.id "${String(item.id)}" appears twice.`, where);
    seen.add(item.id as string);
    if (item.role !== 'user' && item.role !== 'assistant') {
      fail(`${where}.role must be "user" or "assistant", got ${JSON.stringify(item.role)}.`, where);
    }
    if (typeof item.content !== 'string' && !Array.isArray(item.content)) {
      fail(`${where}.content must be a string or an array of content blocks.`, where);
    }
    // The importer's own rules, so a file that passes here imports (an empty message is skipped).
    let blocks: ContentBlock[] | null = null;
    try {
      blocks = importableContent(item.content, item.role as 'user' | 'assistant');
    } catch (error) {
      if (!InvalidInputError.isInstance(error)) throw error;
      fail(`${where}.${error.message}`, where);
    }
    if (blocks) {
      const second = secondToolResult(blocks, imported);
      if (second) {
        fail(
          `${where} answers tool call ${second.toolUseId} again (${second.where} already did); a call gets exactly one result.`,
          where,
        );
      }
      imported.push({ where, blocks });
    }
    if (item.timestamp !== undefined && item.timestamp !== null) {
      // The ledger stores milliseconds since the epoch and refuses a time before it.
      if (typeof item.timestamp !== 'string' || !(Date.parse(item.timestamp) >= 0)) {
        fail(`${where}.timestamp must be an ISO 8601 time from 1970 on, or null; got ${JSON.stringify(item.timestamp)}.`, where);
      }
    }
  }
  const questions = record.questions === undefined ? [] : record.questions;
  if (!Array.isArray(questions)) return fail('"questions" must be an array when present.', 'questions');
  return {
    format: 'nexus-eval/v1',
    id: typeof record.id === 'string' ? record.id : origin,
    source: typeof record.source === 'string' ? record.source : undefined,
    license: typeof record.license === 'string' ? record.license : undefined,
    messages: (record.messages as Record<string, unknown>[]).map((item) => ({
      id: item.id as string,
      role: item.role as 'user' | 'assistant',
      author: typeof item.author === 'string' ? item.author : undefined,
      content: item.content as string | ContentBlock[],
      timestamp: typeof item.timestamp === 'string' ? item.timestamp : null,
    })),
    questions: questions as ConversationQuestion[],
  };
}

/**
 * The rule `appendTurn` applies (append-turn.ts, refuseSecondResults), over the file's messages: a
 * tool_result may not answer a call that the same message, or a message since that call (looking
 * back at most RESULT_LOOKBACK_TURNS messages), already answered. Append counts its look-back in
 * turns, compactions made during the import included, so it looks back over as many messages or
 * fewer: this check may refuse a file append would take, never the reverse.
 */
function secondToolResult(
  blocks: readonly ContentBlock[],
  earlier: ReadonlyArray<{ where: string; blocks: ContentBlock[] }>,
): { toolUseId: string; where: string } | null {
  const wanted = new Set<string>();
  for (const id of toolResultIds(blocks)) {
    if (wanted.has(id)) return { toolUseId: id, where: 'the same message' };
    wanted.add(id);
  }
  for (
    let index = earlier.length - 1;
    index >= 0 && wanted.size > 0 && earlier.length - index <= RESULT_LOOKBACK_TURNS;
    index -= 1
  ) {
    const message = earlier[index] as { where: string; blocks: ContentBlock[] };
    for (const id of toolResultIds(message.blocks)) if (wanted.has(id)) return { toolUseId: id, where: message.where };
    for (const id of toolUseIds(message.blocks)) wanted.delete(id);
  }
  return null;
}
