// How much each line of a written summary is worth keeping when only some of its lines fit. The
// same ranking the extractive summarizer uses to choose sentences, so a summary cut to its best lines
// keeps what the summarizer itself would have kept first. Works on any summary text: a line of
// another summarizer's prose is scored like any sentence.

import type { TokenCounter } from '@agent-ledger/core';
import { documentFrequencies, extractTerms, scoreSentences } from './score.ts';

/** `[t_abc] ` at the start of a line: the citation, not part of what the line says. */
const CITATION_PREFIX = /^\[[^\]\s]+\]\s*/;

/**
 * One score per line (0 for a blank line), higher is worth more. Rarity is measured among the given
 * lines, so the lines of one summary are ranked against each other.
 */
export function lineSalience(lines: readonly string[], counter: TokenCounter): number[] {
  const texts = lines.map((line) => line.replace(CITATION_PREFIX, '').trim());
  const termLists = texts.map((text) => extractTerms(text));
  const frequencies = documentFrequencies(termLists);
  const inputs = texts.map((text) => ({ text, tokens: text === '' ? 0 : counter.countText(text), fromPreviousSummary: false }));
  return scoreSentences(inputs, termLists, frequencies, undefined).map((score, index) => (texts[index] === '' ? 0 : score));
}
