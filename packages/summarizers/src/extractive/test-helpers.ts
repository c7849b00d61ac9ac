// Builders and readers shared by the extractive summarizer's tests.

import { estimateTokenCounter, type TokenCounter } from '@agent-ledger/core';
import type { SummarizableTurn, SummarizeInput, SummarizeResult, SummarySource } from '../summarizer.ts';
import { createExtractiveSummarizer } from './extractive-summarizer.ts';

const CITED_LINE = /^\[([A-Za-z0-9_-]+)\] \S/;

export function turn(id: string, text: string, role: SummarizableTurn['role'] = 'user'): SummarizableTurn {
  return { id, role, text };
}

export function turnsFrom(...texts: string[]): SummarizableTurn[] {
  return texts.map((text, index) =>
    turn(`t_${String(index + 1).padStart(6, '0')}`, text, index % 2 === 0 ? 'user' : 'assistant'),
  );
}

export function summarize(input: SummarizeInput, tokenCounter: TokenCounter = estimateTokenCounter): Promise<SummarizeResult> {
  return createExtractiveSummarizer({ tokenCounter }).summarize(input);
}

export function lineIds(text: string): string[] {
  return text === '' ? [] : text.split('\n').map((line) => line.match(CITED_LINE)?.[1] ?? `(malformed: ${line})`);
}

/** The summary text the sources describe, built independently of the implementation. */
export function textFromSources(sources: readonly SummarySource[]): string {
  const lines: string[] = [];
  let previousId: string | undefined;
  for (const source of sources) {
    if (source.turnId === previousId) lines[lines.length - 1] += ` ${source.text}`;
    else lines.push(`[${source.turnId}] ${source.text}`);
    previousId = source.turnId;
  }
  return lines.join('\n');
}
