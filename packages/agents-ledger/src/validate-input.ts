// Checks what callers hand the ledger before anything is written, so bad input gets a clear error
// naming the field instead of a constraint failure from the database. Every string of a turn must be
// text both engines store as sent (@agent-ledger/core's assertStorableText, docs/data-model.md).

import {
  assertStorableText,
  type ContentBlock,
  DEFAULT_SESSION_SETTINGS,
  InvalidInputError,
  type SessionSettings,
} from '@agent-ledger/core';
import type { LedgerContext } from './ledger-context.ts';
import type { CompactionStrategy } from './strategies/compaction-strategy.ts';

/** The strategy registered under `name`, or an error listing the known ones. */
export function requireStrategy(ledger: Pick<LedgerContext, 'strategies'>, name: string): CompactionStrategy {
  const strategy = typeof name === 'string' ? ledger.strategies.get(name) : undefined;
  if (!strategy) {
    throw new InvalidInputError(
      `Unknown compaction strategy ${JSON.stringify(name)}; known: ${[...ledger.strategies.keys()].join(', ')}.`,
      'strategy',
    );
  }
  return strategy;
}

export function validateSettings(
  partial: Partial<SessionSettings> | undefined,
  base = DEFAULT_SESSION_SETTINGS,
): SessionSettings {
  // A new session's defaults scale with the window it is given; a fork keeps its source's settings.
  const settings = { ...base, ...(base === DEFAULT_SESSION_SETTINGS ? scaledToWindow(partial, base) : partial) };
  for (const [field, value] of Object.entries(settings)) {
    if (!Number.isInteger(value) || value < 0) {
      throw new InvalidInputError(`${field} must be a non-negative whole number of tokens, got ${String(value)}.`, field);
    }
  }
  if (settings.reserveTokens >= settings.contextWindow) {
    throw new InvalidInputError(
      `reserveTokens (${settings.reserveTokens}) must be smaller than contextWindow (${settings.contextWindow}).`,
      'reserveTokens',
    );
  }
  if (settings.keepRecentTokens >= settings.contextWindow - settings.reserveTokens) {
    throw new InvalidInputError(
      `keepRecentTokens (${settings.keepRecentTokens}) must be smaller than contextWindow - reserveTokens ` +
        `(${settings.contextWindow - settings.reserveTokens}), or compaction could never make room.`,
      'keepRecentTokens',
    );
  }
  return settings;
}

/**
 * The settings given, with a reserve and a raw-turn share that keep their proportion of the window
 * when only the window is given: `contextWindow: 8000` alone gets 800 and 1,200 (the defaults' 10%
 * and 15%), not the 20,000 and 30,000 meant for 200,000, which it could not hold.
 */
function scaledToWindow(partial: Partial<SessionSettings> | undefined, base: SessionSettings): Partial<SessionSettings> {
  if (!partial || partial.contextWindow === undefined || !Number.isInteger(partial.contextWindow)) return partial ?? {};
  const share = (value: number) => Math.floor((value * (partial.contextWindow as number)) / base.contextWindow);
  return {
    ...(partial.reserveTokens === undefined ? { reserveTokens: share(base.reserveTokens) } : {}),
    ...(partial.keepRecentTokens === undefined ? { keepRecentTokens: share(base.keepRecentTokens) } : {}),
    ...partial,
  };
}

const ROLES = new Set(['user', 'assistant']);

export function validateRole(role: unknown): 'user' | 'assistant' {
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw new InvalidInputError(`role must be "user" or "assistant", got ${JSON.stringify(role)}.`, 'role');
  }
  return role as 'user' | 'assistant';
}

export function validateContent(content: unknown): ContentBlock[] {
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  if (!Array.isArray(blocks) || blocks.length === 0) {
    throw new InvalidInputError('content must be a non-empty string or a non-empty array of content blocks.', 'content');
  }
  for (const [index, block] of blocks.entries()) validateBlock(block, index);
  // A lone surrogate would also make the Messages API refuse every later request that carries this
  // turn ("no low surrogate in string"): refused here, it never enters the session.
  assertStorableText(content, 'content');
  return blocks as ContentBlock[];
}

/**
 * Tool calls are the assistant's and their results the user's: the Messages API refuses either on
 * the other side, on that request and on every later one, so such a turn is refused at append.
 */
export function validateBlocksForRole(role: 'user' | 'assistant', content: readonly ContentBlock[]): void {
  const calls = content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
  const repeated = calls.find((id, position) => calls.indexOf(id) !== position);
  if (repeated !== undefined) {
    throw new InvalidInputError(
      `content calls tool ${repeated} twice; each tool_use needs its own id. Nothing was written.`,
      'content',
    );
  }
  const wrong = role === 'user' ? 'tool_use' : 'tool_result';
  const index = content.findIndex((block) => block.type === wrong);
  if (index < 0) return;
  const owner = wrong === 'tool_use' ? 'an assistant turn (the model calls tools)' : 'a user turn (results answer the model)';
  throw new InvalidInputError(
    `content[${index}] is a ${wrong} block in ${role === 'user' ? 'a user' : 'an assistant'} turn; a ${wrong} belongs in ${owner}. Nothing was written.`,
    `content[${index}]`,
  );
}

function validateBlock(block: unknown, index: number): void {
  const where = `content[${index}]`;
  if (typeof block !== 'object' || block === null) throw new InvalidInputError(`${where} must be an object.`, where);
  const record = block as Record<string, unknown>;
  switch (record.type) {
    case 'text':
      // The Messages API rejects empty text blocks, so the ledger never stores one.
      if (typeof record.text !== 'string' || record.text === '') {
        throw new InvalidInputError(`${where}.text must be a non-empty string.`, where);
      }
      return;
    case 'tool_use':
      if (typeof record.id !== 'string' || record.id === '' || typeof record.name !== 'string' || record.name === '') {
        throw new InvalidInputError(`${where} is a tool_use and needs a non-empty "id" and "name".`, where);
      }
      return;
    case 'tool_result':
      if (typeof record.tool_use_id !== 'string' || record.tool_use_id === '') {
        throw new InvalidInputError(`${where} is a tool_result and needs the "tool_use_id" of the call it answers.`, where);
      }
      if (record.content !== undefined && typeof record.content !== 'string' && !Array.isArray(record.content)) {
        throw new InvalidInputError(`${where}.content must be a string or an array of text blocks.`, where);
      }
      return;
    default:
      throw new InvalidInputError(
        `${where}.type must be "text", "tool_use" or "tool_result", got ${JSON.stringify(record.type)}.`,
        where,
      );
  }
}

export function validateTimestamp(timestamp: unknown): number | undefined {
  if (timestamp === undefined) return undefined;
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new InvalidInputError(
      `timestamp must be milliseconds since the epoch (a whole number), got ${JSON.stringify(timestamp)}.`,
      'timestamp',
    );
  }
  return timestamp;
}

export function validateMetadata(metadata: unknown): Record<string, unknown> | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new InvalidInputError('metadata must be a JSON object.', 'metadata');
  }
  try {
    JSON.stringify(metadata);
  } catch (error) {
    throw new InvalidInputError(`metadata must be JSON-serializable: ${(error as Error).message}`, 'metadata');
  }
  assertStorableText(metadata, 'metadata');
  return metadata as Record<string, unknown>;
}

/** The model a turn names, stored in a column of its own: text as sent, or null. */
/** A session's label: free text a person reads, stored as sent (or refused). */
export function validateLabel(label: unknown): string | null {
  if (label === undefined || label === null) return null;
  if (typeof label !== 'string') throw new InvalidInputError(`label must be a string, got ${JSON.stringify(label)}.`, 'label');
  assertStorableText(label, 'label');
  return label;
}

export function validateModel(model: unknown): string | null {
  if (model === undefined || model === null) return null;
  if (typeof model !== 'string') throw new InvalidInputError(`model must be a string, got ${JSON.stringify(model)}.`, 'model');
  assertStorableText(model, 'model');
  return model;
}

export function validateEventIds(eventIds: unknown): string[] {
  if (eventIds === undefined || eventIds === null) return [];
  if (!Array.isArray(eventIds) || eventIds.some((id) => typeof id !== 'string' || id === '')) {
    throw new InvalidInputError('eventIds must be an array of event ids (strings).', 'eventIds');
  }
  return [...new Set(eventIds as string[])];
}
