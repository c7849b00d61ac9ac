// One rule for the snippet of a search hit, on every engine: the engine marks where its index
// matched the text (SQLite: FTS5's highlight(); PostgreSQL: ts_headline over the whole text), and
// this cuts the excerpt. The excerpt is about SNIPPET_WORDS words around the matches, as FTS5's
// snippet() places them, widened to the spaces around it so an identifier the words are part of
// (`5.7.44`, `redis-quokka-7.staging.internal`, `src/consumer.ts`) is shown whole, never cut.

/** Where a match starts and stops in a highlighted text: control characters no stored text uses. */
export const MATCH_START = '\u0002';
export const MATCH_STOP = '\u0003';

/** The words a snippet shows around its matches (FTS5's snippet() was asked for 16 tokens). */
export const SNIPPET_WORDS = 16;

/** How far past its words an excerpt may widen to reach a space (a long run without one is cut). */
const WIDEN_LIMIT = 48;

/** A word as core's searchTerms reads one: letters, digits and `_` (the words a query is made of). */
const WORD = /[\p{L}\p{N}\p{M}_]+/gu;

interface Span {
  start: number;
  end: number;
}

/** The text without its marks, and where each match is in it. */
function parseHighlight(highlighted: string): { text: string; matches: Span[] } {
  let text = '';
  const matches: Span[] = [];
  let open = -1;
  for (const character of highlighted) {
    if (character === MATCH_START) open = text.length;
    else if (character === MATCH_STOP) {
      if (open >= 0 && text.length > open) matches.push({ start: open, end: text.length });
      open = -1;
    } else text += character;
  }
  return { text, matches };
}

/** The index of the first word the window starts at: the most distinct matches, centred as FTS5 does. */
function windowStart(words: readonly Span[], matched: readonly boolean[], keys: readonly string[]): number {
  let best = { start: 0, score: -1 };
  matched.forEach((isMatch, index) => {
    if (!isMatch) return;
    const inWindow = new Set<string>();
    for (let at = index; at < Math.min(words.length, index + SNIPPET_WORDS); at += 1)
      if (matched[at]) inWindow.add(keys[at] ?? '');
    if (inWindow.size > best.score) best = { start: index, score: inWindow.size };
  });
  let last = best.start;
  for (let at = best.start; at < Math.min(words.length, best.start + SNIPPET_WORDS); at += 1) if (matched[at]) last = at;
  // FTS5 (fts5SnippetScore): the matches in the middle of the window, the window inside the text.
  const centred = best.start - Math.floor((SNIPPET_WORDS - (last - best.start)) / 2);
  return Math.max(0, Math.min(centred, words.length - SNIPPET_WORDS));
}

/** `from` moved outwards (by `step`) to the nearest whitespace, at most WIDEN_LIMIT characters. */
function widen(text: string, from: number, step: -1 | 1): number {
  let at = from;
  for (let moved = 0; moved < WIDEN_LIMIT; moved += 1) {
    const next = step < 0 ? at - 1 : at;
    if (next < 0 || next >= text.length || /\s/u.test(text.charAt(next))) return at;
    at += step;
  }
  return from;
}

/**
 * The snippet of a text the engine highlighted (matches between MATCH_START and MATCH_STOP): the
 * matched words in [brackets], `…` where the text was cut. Empty when nothing is highlighted and
 * the text is empty.
 */
export function snippetOfHighlight(highlighted: string): string {
  const { text, matches } = parseHighlight(highlighted);
  const words = [...text.matchAll(WORD)].map((found) => ({ start: found.index, end: found.index + found[0].length }));
  const matched = words.map((word) => matches.some((match) => match.start < word.end && word.start < match.end));
  const keys = words.map((word) => text.slice(word.start, word.end).toLowerCase());
  const first = words.length <= SNIPPET_WORDS ? 0 : windowStart(words, matched, keys);
  const shown = words.slice(first, first + SNIPPET_WORDS);
  const start = first === 0 ? 0 : widen(text, shown[0]?.start ?? 0, -1);
  const lastShown = first + shown.length >= words.length ? text.length : (shown.at(-1)?.end ?? text.length);
  const end = lastShown === text.length ? text.length : widen(text, lastShown, 1);
  let snippet = '';
  let at = start;
  for (const match of matches) {
    if (match.end <= start || match.start >= end) continue;
    const from = Math.max(match.start, start);
    const to = Math.min(match.end, end);
    snippet += `${text.slice(at, from)}[${text.slice(from, to)}]`;
    at = to;
  }
  snippet += text.slice(at, end);
  const before = text.slice(0, start).trim() !== '' ? '…' : '';
  const after = text.slice(end).trim() !== '' ? '…' : '';
  return `${before}${snippet.trim()}${after}`;
}
