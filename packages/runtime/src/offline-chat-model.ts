// A model that runs with no network and no key, so `nexus chat` and the demo always work. It is
// labelled as what it is in every reply. It does what exercises the runtime: a question makes it
// call the recall tool (search_history) and answer from the best match; anything else is
// acknowledged with a line about the context it was given.

import { randomUUID } from 'node:crypto';
import { type ContentBlock, contentText, type Message, STOPWORDS, WORD_PATTERN } from '@agent-ledger/core';
import type { ChatModel, ModelReply, ModelRequest } from './chat-model.ts';

export const OFFLINE_MODEL_NAME = 'offline-echo';
const PREFIX = '[offline model]';
const QUESTION =
  /\?\s*$|^(what|when|where|which|who|whom|whose|why|how|did|do|does|is|are|was|were|can|could|should|have|has)\b/i;

export interface OfflineChatModelOptions {
  /** Tool-call ids; random by default (ids must not repeat within a history). */
  generateToolUseId?: () => string;
}

export function createOfflineChatModel(options: OfflineChatModelOptions = {}): ChatModel {
  const nextId = options.generateToolUseId ?? (() => `toolu_offline_${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  return {
    name: OFFLINE_MODEL_NAME,
    label: 'offline model (no ANTHROPIC_API_KEY: replies are canned, not generated)',
    async respond(request: ModelRequest): Promise<ModelReply> {
      const last = request.messages.at(-1);
      const content = last ? reply(request, last, nextId) : [text(`${PREFIX} There is nothing in my context to answer.`)];
      return {
        content,
        stopReason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
        model: OFFLINE_MODEL_NAME,
        // Nothing is billed and nothing is tokenized: zero, not an estimate passed off as a count.
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    },
  };
}

function reply(request: ModelRequest, last: Message, nextId: () => string): ContentBlock[] {
  const results = last.content.filter((block) => block.type === 'tool_result');
  if (results.length > 0) {
    const found = results.map((block) => contentText([block]).replace(/^\[tool_result\]\s*/, '')).join('\n');
    // The question itself is in the history too; the answer is the best match that is not it.
    const asked = normalized(latestUserText(request.messages));
    const best = found
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('No match'))
      .find((line) => normalized(line.slice(line.indexOf('): ') + 3)) !== asked);
    return [
      text(best ? `${PREFIX} From the history: ${best}` : `${PREFIX} I searched the history and found nothing else on that.`),
    ];
  }
  const said = contentText(last.content).trim();
  const words = keywords(said);
  const canSearch = request.toolChoice !== 'none' && request.tools.some((tool) => tool.name === 'search_history');
  if (QUESTION.test(said) && canSearch && words.length > 0) {
    return [
      text(`${PREFIX} Let me look that up.`),
      { type: 'tool_use', id: nextId(), name: 'search_history', input: { query: words.join(' '), limit: 3 } },
    ];
  }
  const summaryNote = request.system.trim() === '' ? 'no summary' : `a system prompt of ${request.system.length} characters`;
  return [text(`${PREFIX} Noted: "${clip(said, 80)}". I was given ${request.messages.length} messages and ${summaryNote}.`)];
}

function latestUserText(messages: readonly Message[]): string {
  for (const message of [...messages].reverse()) {
    if (message.role !== 'user') continue;
    const said = message.content.filter((block) => block.type === 'text');
    if (said.length > 0) return contentText(said);
  }
  return '';
}

/** Words only, lower case: a search snippet with [marks] compares equal to the text it came from. */
function normalized(value: string): string {
  return (value.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}

function keywords(said: string): string[] {
  const seen = new Set<string>();
  for (const match of said.toLowerCase().matchAll(WORD_PATTERN)) {
    const word = match[0];
    if (word.length > 1 && !STOPWORDS.has(word)) seen.add(word);
  }
  return [...seen].slice(0, 8);
}

function text(value: string): ContentBlock {
  return { type: 'text', text: value };
}

function clip(value: string, length: number): string {
  return value.length <= length ? value : `${value.slice(0, length - 1)}…`;
}
