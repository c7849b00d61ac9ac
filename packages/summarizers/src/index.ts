export type { SummarizableTurn, SummarizeInput, SummarizeResult, Summarizer, SummarySource } from './summarizer.ts';
export { createExtractiveSummarizer } from './extractive/extractive-summarizer.ts';
export type { ExtractiveSummarizerOptions } from './extractive/extractive-summarizer.ts';
