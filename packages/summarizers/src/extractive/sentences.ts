// Cuts text into the units the extractive summarizer ranks: prose sentences, and whole lines of code or lists.

import type { TokenCounter } from '@agent-ledger/core';

/** Longer sentences are clipped, so one run-on paragraph cannot take a whole budget. */
export const MAX_SENTENCE_TOKENS = 60;
const ELLIPSIS = ' …';

const LINE_BREAK = /\r\n|\r|\n/;
const FENCE = /^(?:```|~~~)/;
const LIST_MARKER = /^(?:[-*+•]|\d{1,3}[.)])\s+/;
const QUOTE_OR_HEADING = /^(?:>+|#{1,6})\s+/;
// Lines a person would not read as prose: shell prompts, comments, markup, table rows, statements.
const CODE_LINE = /^(?:\$ |\/\/|\/\*|\*\/|<\/?[A-Za-z!]|\||[})\]])|[{};]$|=>|^\w[\w.]*\(.*\);?$/;
const INDENTED = /^(?:\t| {2,})/;
const HAS_WORD = /[\p{L}\p{N}]/u;
const ENDS_CLAUSE = /[.!?:;]$/;
const STARTS_LOWERCASE = /^\p{Ll}/u;
// A wrapped prose line is long; a short line without a full stop is more likely a label or a command.
const MIN_WRAPPED_LINE_LENGTH = 40;

// A boundary is terminal punctuation, optional closing quotes or brackets, whitespace, then something
// that can open a sentence. Dots inside versions, paths, URLs and decimals have no whitespace after
// them, so they never match.
// '…' counts too: a clipped sentence ends with it and must stay one sentence when a summary is re-read.
const SENTENCE_BOUNDARY = /([.!?…]+)(["'’”)\]]*)\s+(?=[\p{Lu}\p{N}"'“‘(`[])/gu;
const ABBREVIATIONS = new Set([
  'mr.',
  'mrs.',
  'ms.',
  'dr.',
  'prof.',
  'sr.',
  'jr.',
  'st.',
  'vs.',
  'cf.',
  'approx.',
  'fig.',
  'inc.',
  'ltd.',
  'co.',
  'dept.',
  'vol.',
  'ca.',
  'incl.',
  'resp.',
]);
// e.g., i.e., U.S.: letters each followed by a dot.
const DOTTED_INITIALS = /^(?:\p{L}\.)+$/u;
const LEADING_PUNCTUATION = /^[("'“‘[`]+/;

/**
 * The units of one text, in order: each prose sentence, and each non-empty line of code or of a
 * list. Units never contain a line break; runs of whitespace are collapsed to one space.
 */
export function splitIntoUnits(text: string): string[] {
  const units: string[] = [];
  let paragraph = '';
  let paragraphIsWrapped = false;
  let insideFence = false;

  const flush = (): void => {
    if (paragraph !== '') pushAll(units, splitSentences(paragraph));
    paragraph = '';
    paragraphIsWrapped = false;
  };

  for (const rawLine of text.split(LINE_BREAK)) {
    const line = collapseWhitespace(rawLine);
    if (FENCE.test(line)) {
      flush();
      insideFence = !insideFence;
      continue;
    }
    if (line === '') {
      flush();
      continue;
    }
    if (insideFence) {
      flush();
      units.push(line);
      continue;
    }
    const listItem = line.match(LIST_MARKER);
    if (listItem) {
      flush();
      pushAll(units, splitSentences(line.slice(listItem[0].length)));
      continue;
    }
    const quoteOrHeading = line.match(QUOTE_OR_HEADING);
    if (quoteOrHeading) {
      flush();
      pushAll(units, splitSentences(line.slice(quoteOrHeading[0].length)));
      continue;
    }
    if (INDENTED.test(rawLine) || CODE_LINE.test(line)) {
      flush();
      units.push(line);
      continue;
    }
    if (paragraphIsWrapped && STARTS_LOWERCASE.test(line)) {
      paragraph = `${paragraph} ${line}`;
    } else {
      flush();
      paragraph = line;
    }
    paragraphIsWrapped = line.length >= MIN_WRAPPED_LINE_LENGTH && !ENDS_CLAUSE.test(line);
  }
  flush();
  return units.filter((unit) => HAS_WORD.test(unit));
}

/** Splits one line of prose into sentences. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  for (const match of text.matchAll(SENTENCE_BOUNDARY)) {
    const punctuation = match[1] ?? '';
    const closing = match[2] ?? '';
    const index = match.index ?? 0;
    if (punctuation === '.' && endsWithAbbreviation(text, start, index)) continue;
    pushTrimmed(sentences, text.slice(start, index + punctuation.length + closing.length));
    start = index + match[0].length;
  }
  pushTrimmed(sentences, text.slice(start));
  return sentences;
}

export interface ClippedText {
  text: string;
  tokens: number;
}

/**
 * The text unchanged if it fits `maxTokens`, else its longest prefix (cut between words when it can)
 * that fits with an ellipsis appended. Returns the token count too, since every caller needs it.
 */
export function clipToTokens(text: string, counter: TokenCounter, maxTokens: number = MAX_SENTENCE_TOKENS): ClippedText {
  const tokens = counter.countText(text);
  if (tokens <= maxTokens) return { text, tokens };
  const clippedAt = (end: number): string => text.slice(0, end) + ELLIPSIS;

  // Sum word by word to place the cut, then recount the real prefix, since a counter need not be
  // additive over concatenation, and step back until it fits.
  const wordEnds: number[] = [];
  let estimate = counter.countText(ELLIPSIS);
  for (const match of text.matchAll(/\S+/g)) {
    estimate += counter.countText(` ${match[0]}`);
    if (estimate > maxTokens) break;
    wordEnds.push((match.index ?? 0) + match[0].length);
  }
  for (let count = wordEnds.length; count > 0; count -= 1) {
    const clipped = clippedAt(wordEnds[count - 1] ?? 0);
    const clippedTokens = counter.countText(clipped);
    if (clippedTokens <= maxTokens) return { text: clipped, tokens: clippedTokens };
  }

  // Not even one word fits (a minified line, a blob): cut inside it.
  let end = largestFitting(text.length, (length) => counter.countText(clippedAt(length)) <= maxTokens);
  if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  if (end <= 0) return { text: '', tokens: counter.countText('') };
  const clipped = clippedAt(end);
  return { text: clipped, tokens: counter.countText(clipped) };
}

// A spread of a huge array into push() overflows the call stack; one pasted log line can hold that many sentences.
function pushAll(target: string[], items: readonly string[]): void {
  for (const item of items) target.push(item);
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function pushTrimmed(sentences: string[], sentence: string): void {
  const trimmed = sentence.trim();
  if (trimmed !== '') sentences.push(trimmed);
}

function endsWithAbbreviation(text: string, start: number, dotIndex: number): boolean {
  const wordStart = Math.max(start, text.lastIndexOf(' ', dotIndex) + 1);
  const word = text.slice(wordStart, dotIndex + 1).replace(LEADING_PUNCTUATION, '');
  return ABBREVIATIONS.has(word.toLowerCase()) || DOTTED_INITIALS.test(word);
}

/** The largest n in [0, upper] with `fits(n)`, assuming fits is monotone (true, then false). */
function largestFitting(upper: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = upper;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
