// Writes the extractive summary's `[turnId] sentence` lines and reads them back when the summary is folded again.

import { splitIntoUnits, splitSentences } from './sentences.ts';

/** Source id for text of a previous summary that names no turn (a summary some other summarizer wrote). */
export const SUMMARY_SOURCE_ID = 'summary';

const CITED_LINE = /^\[([A-Za-z0-9_-]+)\](?:\s+|$)/;
const HAS_WORD = /[\p{L}\p{N}]/u;

export interface SourcedSentence {
  sourceId: string;
  text: string;
}

/** One line per run of consecutive sentences from the same source: `[id] first second`. */
export function formatSummary(sentences: readonly SourcedSentence[]): string {
  const lines: string[] = [];
  let currentId: string | undefined;
  let currentLine = '';
  for (const sentence of sentences) {
    if (sentence.sourceId === currentId) {
      currentLine += ` ${sentence.text}`;
      continue;
    }
    if (currentId !== undefined) lines.push(currentLine);
    currentId = sentence.sourceId;
    currentLine = `[${sentence.sourceId}] ${sentence.text}`;
  }
  if (currentId !== undefined) lines.push(currentLine);
  return lines.join('\n');
}

/**
 * The sentences of a previous summary with the ids they cite. Lines that cite no id (a header, or
 * prose from a model-backed summarizer) are split like turn text and attributed to `summary`.
 */
export function parseSummary(summary: string): SourcedSentence[] {
  const sentences: SourcedSentence[] = [];
  let uncitedLines: string[] = [];
  const flushUncited = (): void => {
    for (const text of splitIntoUnits(uncitedLines.join('\n'))) sentences.push({ sourceId: SUMMARY_SOURCE_ID, text });
    uncitedLines = [];
  };

  for (const line of summary.split(/\r\n|\r|\n/)) {
    const cited = line.match(CITED_LINE);
    if (!cited) {
      uncitedLines.push(line);
      continue;
    }
    flushUncited();
    const sourceId = cited[1] ?? SUMMARY_SOURCE_ID;
    const body = line.slice(cited[0].length).replace(/\s+/g, ' ').trim();
    for (const text of splitSentences(body)) if (HAS_WORD.test(text)) sentences.push({ sourceId, text });
  }
  flushUncited();
  return sentences;
}
