export type { ExtractiveSummarizerOptions } from './extractive/extractive-summarizer.ts';
export { createExtractiveSummarizer } from './extractive/extractive-summarizer.ts';
export type { SummarizableTurn, SummarizeInput, SummarizeResult, Summarizer, SummarySource } from './summarizer.ts';
