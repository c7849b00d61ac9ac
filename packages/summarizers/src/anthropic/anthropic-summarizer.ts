// The model-backed summarizer: one Messages API call per summary on a small, cheap model (separate
// from the chat model). Its output is checked before use; an API failure that outlasts the SDK's
// retries, or a summary the guards reject, either falls back to another summarizer (the offline
// extractive one by default) or defers the compaction. Either way it never writes anything: the
// ledger stores a compaction only from a summary this function returned.

import { estimateTokenCounter, SummarizerError, type TokenCounter } from '@agent-ledger/core';
import type Anthropic from '@anthropic-ai/sdk';
import { createExtractiveSummarizer } from '../extractive/extractive-summarizer.ts';
import type { SummarizeInput, SummarizeResult, Summarizer, SummarizerCall } from '../summarizer.ts';
import { type AnthropicClientOptions, createAnthropicClient, describeApiFailure } from './anthropic-client.ts';
import { silenceLimit } from './silence-limit.ts';
import { clipSummary, rejectSummary } from './summary-guards.ts';
import { SUMMARY_SYSTEM_PROMPT, summaryUserMessage } from './summary-prompt.ts';

export const DEFAULT_SUMMARY_MODEL = 'claude-haiku-4-5';

export interface AnthropicSummarizerOptions extends AnthropicClientOptions {
  /** The summarizing model; a small, cheap one by default (`NEXUS_SUMMARY_MODEL` overrides). */
  model?: string;
  /**
   * What happens when the API fails after its retries or the summary is rejected: `fallback` (the
   * default) summarizes with `fallback` instead; `defer` rejects with a SummarizerError, so the
   * compaction is not written now and the turns stay raw until the next attempt.
   */
  onFailure?: 'fallback' | 'defer';
  /** The summarizer used on failure; the offline extractive one by default. */
  fallback?: Summarizer;
  /** Counts the budget and checks that summaries shrink; the ledger's estimate by default. */
  tokenCounter?: TokenCounter;
}

const NAME = 'anthropic';
// The estimate counts about as many tokens as Claude's tokenizer on prose; the headroom lets the
// model finish its last line rather than stop mid-word, and the summary is clipped to target after.
const MAX_TOKENS_HEADROOM = 1.25;
const WORDS_PER_TOKEN = 0.7;

export function createAnthropicSummarizer(options: AnthropicSummarizerOptions = {}): Summarizer {
  const client = createAnthropicClient(options);
  const model = options.model ?? process.env.NEXUS_SUMMARY_MODEL ?? DEFAULT_SUMMARY_MODEL;
  const counter = options.tokenCounter ?? estimateTokenCounter;
  const onFailure = options.onFailure ?? 'fallback';
  const fallback = options.fallback ?? createExtractiveSummarizer({ tokenCounter: counter });

  return {
    name: NAME,
    async summarize(input: SummarizeInput): Promise<SummarizeResult> {
      const { targetTokens } = input;
      if (typeof targetTokens !== 'number' || !Number.isFinite(targetTokens) || targetTokens <= 0) {
        throw new SummarizerError(`targetTokens must be a positive finite number, got ${String(targetTokens)}.`, NAME);
      }
      const inputTokens =
        counter.countText(input.previousSummary ?? '') + input.turns.reduce((sum, turn) => sum + counter.countText(turn.text), 0);
      const attempt = await callModel(client, model, input);
      let rejected: string;
      if (attempt.ok) {
        // Judged as the model wrote it (a reply larger than its input is not a summary), then clipped.
        const text = clipSummary(attempt.text, targetTokens, counter);
        const rejection =
          rejectSummary(attempt.text, { inputTokens, stopReason: attempt.stopReason }, counter) ??
          rejectSummary(text, { inputTokens, stopReason: null }, counter);
        const call: SummarizerCall = {
          summarizer: NAME,
          model,
          inputTokens: attempt.usage.inputTokens,
          outputTokens: attempt.usage.outputTokens,
        };
        if (!rejection) return { text, usage: attempt.usage, writtenBy: `${NAME}/${model}`, calls: [call] };
        rejected = rejection;
        attempt.call = { ...call, rejected };
      } else {
        rejected = `api-error: ${attempt.reason}`;
      }

      if (onFailure === 'defer') {
        throw new SummarizerError(
          `The Anthropic summarizer (${model}) could not summarize (${rejected}); the compaction is deferred and nothing was written. ` +
            'The turns stay raw and the next compaction tries again.',
          NAME,
          { cause: attempt.ok ? undefined : attempt.error },
        );
      }
      const result = await fallback.summarize(input);
      const spent = attempt.call ?? { summarizer: NAME, model, inputTokens: 0, outputTokens: 0, rejected };
      return {
        ...result,
        usage: {
          inputTokens: spent.inputTokens + result.usage.inputTokens,
          outputTokens: spent.outputTokens + result.usage.outputTokens,
        },
        writtenBy: result.writtenBy ?? fallback.name,
        calls: [
          { ...spent, rejected },
          ...(result.calls ?? [
            { summarizer: fallback.name, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
          ]),
        ],
      };
    },
  };
}

type Attempt =
  | {
      ok: true;
      text: string;
      stopReason: string | null;
      usage: { inputTokens: number; outputTokens: number };
      call?: SummarizerCall;
    }
  | { ok: false; reason: string; error: unknown; call?: SummarizerCall };

async function callModel(client: Anthropic, model: string, input: SummarizeInput): Promise<Attempt> {
  try {
    const message = await client.messages.create(
      {
        model,
        max_tokens: Math.ceil(input.targetTokens * MAX_TOKENS_HEADROOM) + 64,
        system: SUMMARY_SYSTEM_PROMPT,
        messages: [
          { role: 'user', content: summaryUserMessage(input, Math.max(20, Math.floor(input.targetTokens * WORDS_PER_TOKEN))) },
        ],
      },
      { middleware: [silenceLimit(client.timeout).middleware] },
    );
    const text = (Array.isArray(message.content) ? message.content : [])
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('')
      .trim();
    return {
      ok: true,
      text,
      stopReason: message.stop_reason ?? null,
      usage: { inputTokens: message.usage?.input_tokens ?? 0, outputTokens: message.usage?.output_tokens ?? 0 },
    };
  } catch (error) {
    return { ok: false, reason: describeApiFailure(error), error };
  }
}
