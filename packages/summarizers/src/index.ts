export type { AnthropicClientOptions } from './anthropic/anthropic-client.ts';
export {
  createAnthropicClient,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  describeApiFailure,
  hasAnthropicKey,
} from './anthropic/anthropic-client.ts';
export type { AnthropicSummarizerOptions } from './anthropic/anthropic-summarizer.ts';
export { createAnthropicSummarizer, DEFAULT_SUMMARY_MODEL } from './anthropic/anthropic-summarizer.ts';
export type { CountableRequest, CountTokens } from './anthropic/anthropic-token-count.ts';
export { createAnthropicTokenCount } from './anthropic/anthropic-token-count.ts';
export { type SilenceLimit, silenceLimit } from './anthropic/silence-limit.ts';
export type { SummaryRejection } from './anthropic/summary-guards.ts';
export { clipSummary, isRefusal, rejectSummary } from './anthropic/summary-guards.ts';
export { SUMMARY_SYSTEM_PROMPT, summaryUserMessage } from './anthropic/summary-prompt.ts';
export type { ExtractiveSummarizerOptions } from './extractive/extractive-summarizer.ts';
export { createExtractiveSummarizer } from './extractive/extractive-summarizer.ts';
export { lineSalience } from './extractive/line-salience.ts';
export type {
  SummarizableTurn,
  SummarizeInput,
  SummarizeResult,
  Summarizer,
  SummarizerCall,
  SummarySource,
} from './summarizer.ts';
