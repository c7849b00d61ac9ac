// A topic block's body as the units a context chooses from: each line's citation (`[t_…] `) and its
// sentences. A summary line holds every sentence one turn gave it, so a line of two sentences costs
// twice one; choosing sentences rather than lines lets a tight room cite more turns, each by its best
// sentence. Pure; fit-topics.ts decides which sentences go in.

/** One stored line: its text as stored, its citation prefix (or '') and its sentences, in order. */
export interface TopicLine {
  text: string;
  prefix: string;
  sentences: string[];
}

/** Ends a line shown without all its sentences, so a reader knows the turn said more. */
export const SHORTENED_MARK = ' …';

const CITATION_PREFIX = /^\[[A-Za-z0-9_-]+\]\s+/;
// As the extractive summarizer cuts sentences: terminal punctuation, optional closing quotes or
// brackets, whitespace, then something that can open a sentence. Dots inside versions, paths and
// decimals have no whitespace after them. A miss only joins two sentences into one unit.
const SENTENCE_BOUNDARY = /(?<=[.!?…]["'’”)\]]*)\s+(?=[\p{Lu}\p{N}"'“‘(`[])/u;
const HAS_WORD = /[\p{L}\p{N}]/u;

/** The non-blank lines of a body, each split into its citation and sentences. */
export function topicLines(body: readonly string[]): TopicLine[] {
  return body
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const prefix = line.match(CITATION_PREFIX)?.[0] ?? '';
      const sentences = splitLineSentences(line.slice(prefix.length));
      return { text: line, prefix, sentences: sentences.length > 0 ? sentences : [line.slice(prefix.length)] };
    });
}

/**
 * Splits a line's text into sentences. A piece with no letter or digit (a stray "…") stays with the
 * sentence before it, and a short one ("Hey Nate!", "Wow.") opens the sentence after it: alone it
 * would cite its turn for almost nothing, and cheap fragments would crowd out facts.
 */
function splitLineSentences(text: string): string[] {
  const sentences: string[] = [];
  let opening = '';
  for (const piece of text.split(SENTENCE_BOUNDARY)) {
    const last = sentences.length - 1;
    if (!HAS_WORD.test(piece) && last >= 0 && opening === '') sentences[last] = `${sentences[last]} ${piece}`;
    else if (wordCount(`${opening}${piece}`) < MIN_SENTENCE_WORDS) opening = `${opening}${piece} `;
    else {
      sentences.push(`${opening}${piece}`);
      opening = '';
    }
  }
  const last = sentences.length - 1;
  if (opening !== '') {
    if (last >= 0) sentences[last] = `${sentences[last]} ${opening.trimEnd()}`;
    else sentences.push(opening.trimEnd());
  }
  return sentences;
}

/** Fewer words than this make a fragment, not a sentence to show alone. */
const MIN_SENTENCE_WORDS = 5;

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => HAS_WORD.test(word)).length;
}

/** The line as shown: whole as stored, or its kept sentences and the shortened mark. */
export function renderTopicLine(line: TopicLine, kept: ReadonlySet<number>): string {
  const shown = line.sentences.filter((_, index) => kept.has(index));
  if (shown.length === line.sentences.length) return line.text;
  return `${line.prefix}${shown.join(' ')}${SHORTENED_MARK}`;
}

/**
 * A trimmed topic's header: the stored header with how many of its lines are left out, so the reader
 * knows the topic says more than is shown and that expanding its id brings it back. No `[t_…]`
 * citation is added: the header stands for turns it does not show.
 */
export function trimmedHeader(header: string, linesLeftOut: number): string {
  const note = ` · ${linesLeftOut} more line${linesLeftOut === 1 ? '' : 's'} by expanding`;
  return header.endsWith(']') ? `${header.slice(0, -1)}${note}]` : `${header}${note}`;
}
