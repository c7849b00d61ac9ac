// Which chat model and summarizer `nexus chat` uses: Anthropic when a key is configured (the
// summarizer then falls back to the extractive one when the API fails), otherwise the offline
// model and the extractive summarizer, so the command always runs.

import { type ChatModel, createAnthropicChatModel, createOfflineChatModel } from '@agent-ledger/runtime';
import { createExtractiveSummarizer, type Summarizer } from '@agent-ledger/summarizers';
import { chooseSummarizer } from '../choose-summarizer.ts';

export interface ModelChoice {
  model: ChatModel;
  summarizer: Summarizer;
  /** One line for the banner: what answers, and what summarizes. */
  description: string;
}

export function chooseModels(
  env: Record<string, string | undefined>,
  options: { offline: boolean; model?: string; timeoutMs?: number },
): ModelChoice {
  const apiKey = env.ANTHROPIC_API_KEY;
  if (options.offline || !apiKey) {
    const model = createOfflineChatModel();
    const why = options.offline ? '--offline' : 'ANTHROPIC_API_KEY is not set';
    return {
      model,
      summarizer: createExtractiveSummarizer(),
      description: `offline model (${why}): replies are canned, not generated; extractive summarizer`,
    };
  }
  const client = {
    apiKey,
    ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  const model = createAnthropicChatModel({ ...client, ...(options.model ? { model: options.model } : {}) });
  const summarizer = chooseSummarizer(env, {
    name: 'anthropic',
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  return {
    model,
    summarizer,
    description: `${model.label}${env.ANTHROPIC_BASE_URL ? ` at ${env.ANTHROPIC_BASE_URL}` : ''}; Anthropic summarizer (extractive when the API fails)`,
  };
}
