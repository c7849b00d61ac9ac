// Checks a model's summary before it may replace turns. A summary that is empty, that is no smaller
// than what it summarizes, or that is a refusal ("I don't see any conversation…") would silently
// lose the history it stands for, so it is rejected and the configured fallback takes over.

import type { TokenCounter } from '@agent-ledger/core';

export type SummaryRejection = 'empty' | 'refusal' | 'did-not-shrink';

// How refusals and non-answers open. Only the first sentence is tested: a real summary may well
// contain "I cannot" in a quoted user message further down.
const REFUSAL_OPENINGS = [
  /^(i'?m|i am) (sorry|afraid|unable)/i,
  /^i apologi[sz]e/i,
  /^(unfortunately,? )?i (can(?:not|'?t)|do(?: not|n'?t)|won'?t|am not able to) (see|find|access|summari[sz]e|help|provide|assist|comply)/i,
  /^there (is|are|was|were) no (conversation|transcript|messages?|content|text)\b/i,
  // "No conversation was provided", but not a summary line such as "No messages were lost in the migration".
  /^no (conversation|transcript|messages?|content|text)( to summari[sz]e| (was |were |has been |have been )?(provided|given|found|included|shared)|[.!]?$)/i,
  /^(the )?(conversation|transcript) (is|appears to be|seems) (empty|missing)/i,
  /^as an ai\b/i,
];

export function isRefusal(text: string): boolean {
  // Models write curly apostrophes as often as straight ones.
  const opening = text
    .trim()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/^["'*_#\s-]+/, '')
    .slice(0, 200);
  return REFUSAL_OPENINGS.some((pattern) => pattern.test(opening));
}

/** Why `summary` must not be used, or null when it may. */
export function rejectSummary(
  summary: string,
  input: { inputTokens: number; stopReason?: string | null },
  counter: TokenCounter,
): SummaryRejection | null {
  if (summary.trim() === '') return 'empty';
  if (input.stopReason === 'refusal' || isRefusal(summary)) return 'refusal';
  if (counter.countText(summary) >= input.inputTokens) return 'did-not-shrink';
  return null;
}

/** Cuts a summary to `targetTokens` at a line boundary (a sentence boundary when one line is too long). */
export function clipSummary(summary: string, targetTokens: number, counter: TokenCounter): string {
  const text = summary.trim();
  if (counter.countText(text) <= targetTokens) return text;
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const next = [...kept, line].join('\n');
    if (counter.countText(next) > targetTokens) break;
    kept.push(line);
  }
  if (kept.length > 0) return kept.join('\n').trim();
  // One long first line: keep whole sentences of it, or words when even one sentence is too long.
  const pieces = text.split('\n')[0]?.split(/(?<=[.!?])\s+/) ?? [];
  const sentences: string[] = [];
  for (const sentence of pieces) {
    if (counter.countText([...sentences, sentence].join(' ')) > targetTokens) break;
    sentences.push(sentence);
  }
  if (sentences.length > 0) return sentences.join(' ');
  const words: string[] = [];
  for (const word of text.split(/\s+/)) {
    if (counter.countText([...words, word].join(' ')) > targetTokens) break;
    words.push(word);
  }
  return words.join(' ');
}
