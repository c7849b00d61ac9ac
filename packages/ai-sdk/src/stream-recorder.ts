// Passes a model's stream through untouched while keeping what it says, and records the reply when
// the stream ends: finished, failed part-way (an `error` part or a broken connection) or cancelled
// by the app. A reply that did not finish is still recorded, marked incomplete: what arrived is part
// of the conversation the app showed its user.

import type { ContentBlock } from '@agent-ledger/core';
import type { LanguageModelV3FinishReason, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { parseInput } from './prompt-conversion.ts';

export interface StreamOutcome {
  content: ContentBlock[];
  usage: LanguageModelV3Usage | null;
  finishReason: LanguageModelV3FinishReason | null;
  /** Why it did not finish: an error part, a failed read, or the app's cancel reason. */
  failure: unknown;
  complete: boolean;
}

export function recordingStream(
  inner: ReadableStream<LanguageModelV3StreamPart>,
  onEnd: (outcome: StreamOutcome) => Promise<void>,
): ReadableStream<LanguageModelV3StreamPart> {
  const reader = inner.getReader();
  const reply = new ReplyParts();
  let ended = false;
  const end = async (complete: boolean, failure: unknown = null) => {
    if (ended) return;
    ended = true;
    await onEnd({ content: reply.content(), usage: reply.usage, finishReason: reply.finishReason, failure, complete });
  };
  return new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        await end(false, error);
        controller.error(error);
        return;
      }
      if (next.done) {
        await end(reply.failure === null, reply.failure);
        controller.close();
        return;
      }
      reply.observe(next.value);
      controller.enqueue(next.value);
    },
    async cancel(reason) {
      await end(false, reason ?? 'cancelled');
      await reader.cancel(reason);
    },
  });
}

/** The reply as its parts arrive: text by block, finished tool calls, usage and why it stopped. */
class ReplyParts {
  private readonly texts = new Map<string, string>();
  private readonly order: Array<{ text: string } | { call: ContentBlock }> = [];
  usage: LanguageModelV3Usage | null = null;
  finishReason: LanguageModelV3FinishReason | null = null;
  failure: unknown = null;

  observe(part: LanguageModelV3StreamPart): void {
    if (part.type === 'text-start' || (part.type === 'text-delta' && !this.texts.has(part.id))) {
      this.texts.set(part.id, '');
      this.order.push({ text: part.id });
    }
    if (part.type === 'text-delta') this.texts.set(part.id, (this.texts.get(part.id) ?? '') + part.delta);
    else if (part.type === 'tool-call' && !part.providerExecuted)
      this.order.push({ call: { type: 'tool_use', id: part.toolCallId, name: part.toolName, input: parseInput(part.input) } });
    else if (part.type === 'finish') {
      this.usage = part.usage;
      this.finishReason = part.finishReason;
    } else if (part.type === 'error') this.failure = part.error ?? 'error';
  }

  content(): ContentBlock[] {
    return this.order.flatMap((entry): ContentBlock[] => {
      if ('call' in entry) return [entry.call];
      const text = this.texts.get(entry.text) ?? '';
      return text === '' ? [] : [{ type: 'text', text }];
    });
  }
}
