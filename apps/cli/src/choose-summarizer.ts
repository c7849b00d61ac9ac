// Which summarizer a command compacts with: Anthropic's when a key is configured (it falls back to the
// extractive one when the API fails), the offline extractive one otherwise or when asked by name.
// `nexus chat` and `nexus compact` choose the same way.

import { createAnthropicSummarizer, createExtractiveSummarizer, type Summarizer } from '@agent-ledger/summarizers';
import { UsageError } from './arguments.ts';

export const SUMMARIZER_NAMES = ['anthropic', 'extractive'] as const;

export function chooseSummarizer(
  env: Record<string, string | undefined>,
  options: { name?: string; timeoutMs?: number } = {},
): Summarizer {
  const { name } = options;
  if (name !== undefined && !(SUMMARIZER_NAMES as readonly string[]).includes(name))
    throw new UsageError(`--summarizer must be ${SUMMARIZER_NAMES.join(' or ')}, got "${name}".`);
  const apiKey = env.ANTHROPIC_API_KEY;
  if (name === 'extractive' || (name === undefined && !apiKey)) return createExtractiveSummarizer();
  if (!apiKey)
    throw new UsageError('--summarizer anthropic needs ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for another endpoint).');
  return createAnthropicSummarizer({
    apiKey,
    ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(env.NEXUS_SUMMARY_MODEL ? { model: env.NEXUS_SUMMARY_MODEL } : {}),
  });
}
