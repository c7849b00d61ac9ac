// The search benchmark's queries, by kind, and the words planted in the history so that each kind has a known number of
// matches: a rare identifier in one turn (and one event), the same identifier typed with two common words, a word only
// in the first half of the history (always summarized by the time the build ends), three words taken from one turn, a
// common word, and a word in no text at all.

import type { AppendTurnInput } from '../../packages/agents-ledger/src/index.ts';
import type { ContentBlock } from '../../packages/core/src/index.ts';
import type { AppendEventInput } from '../../packages/events-ledger/src/index.ts';
import { createSeededRandom, type SeededRandom } from './seeded-random.ts';

export const QUERY_KINDS = [
  'rare identifier',
  'rare word among common ones',
  'common word',
  '3 words of one turn',
  'word only in summarized turns',
  'no match',
] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

/** How many different queries of each kind a benchmark cycles through. */
const QUERIES_PER_KIND = 8;
/** Words of the synthetic conversation that most turns contain (see synthetic-conversation.ts). */
const COMMON_WORDS = ['the', 'deployment', 'should', 'latency', 'because', 'cache', 'database', 'with'];
/** Common words that are no English stop word (PostgreSQL drops those): typed beside an identifier. */
const COMMON_CONTENT_WORDS = ['deployment', 'latency', 'cache', 'database'];
/** In no word list of the generators, so they match only where planted. */
const SUMMARIZED_ONLY_WORDS = ['okapi', 'quetzal', 'axolotl', 'pangolin'];
/** One planted word every this many turns (and events), in the first half of the history only. */
export const SUMMARIZED_WORD_EVERY = 250;

export interface QueryPlan {
  /** Turn index → the word appended to that turn's text. */
  turnWords: Map<number, string>;
  /** Event index → the word appended to that event's text. */
  eventWords: Map<number, string>;
  /** Indexes of the turns that 3-word queries are taken from (before anything is planted in them). */
  phraseTurns: Set<number>;
  /** Every query but the 3-word ones, which come from the history as it is built. */
  queries: Omit<Record<QueryKind, string[]>, '3 words of one turn'>;
  random: SeededRandom;
}

function distinctIndexes(random: SeededRandom, count: number, below: number, taken: ReadonlySet<number>): number[] {
  const found = new Set<number>();
  while (found.size < Math.min(count, below - taken.size)) {
    const index = random.integer(0, below - 1);
    if (!taken.has(index)) found.add(index);
  }
  return [...found];
}

function letters(random: SeededRandom, count: number): string {
  return Array.from({ length: count }, () => String.fromCharCode(97 + random.integer(0, 25))).join('');
}

export function planQueries(size: number, seed: number): QueryPlan {
  const random = createSeededRandom(seed);
  const turnWords = new Map<number, string>();
  const eventWords = new Map<number, string>();
  for (let index = SUMMARIZED_WORD_EVERY / 2; index < size / 2; index += SUMMARIZED_WORD_EVERY) {
    const word = SUMMARIZED_ONLY_WORDS[Math.floor(index / SUMMARIZED_WORD_EVERY) % SUMMARIZED_ONLY_WORDS.length] as string;
    turnWords.set(index, word);
    eventWords.set(index, word);
  }
  // A ticket-like token: one FTS5 token (letters and digits only), in no word list.
  const identifiers = Array.from({ length: QUERIES_PER_KIND }, () => `tkt${random.integer(1_000_000, 9_999_999)}`);
  const turnPositions = distinctIndexes(random, identifiers.length, size, new Set(turnWords.keys()));
  const eventPositions = distinctIndexes(random, identifiers.length, size, new Set(eventWords.keys()));
  identifiers.forEach((identifier, index) => {
    turnWords.set(turnPositions[index] as number, identifier);
    eventWords.set(eventPositions[index] as number, identifier);
  });
  const phraseTurns = new Set(distinctIndexes(random, QUERIES_PER_KIND, size, new Set()));
  return {
    turnWords,
    eventWords,
    phraseTurns,
    queries: {
      'rare identifier': identifiers,
      // Most planted turns hold neither common word, so every word matches nothing and any word is searched.
      'rare word among common ones': identifiers.map(
        (identifier, index) => `${identifier} ${COMMON_CONTENT_WORDS[index % 4]} ${COMMON_CONTENT_WORDS[(index + 1) % 4]}`,
      ),
      'common word': COMMON_WORDS,
      'word only in summarized turns': SUMMARIZED_ONLY_WORDS,
      'no match': Array.from({ length: QUERIES_PER_KIND }, () => `xq${letters(random, 7)}`),
    },
    random,
  };
}

/** The text of a generated turn that a person would quote: the string, or its first text-bearing block. */
function turnText(input: AppendTurnInput): string {
  if (typeof input.content === 'string') return input.content;
  for (const block of input.content) {
    if (block.type === 'text') return block.text;
    if (block.type === 'tool_result' && typeof block.content === 'string') return block.content;
  }
  return '';
}

/** Three consecutive words of the turn, as a person would type them back (no punctuation, lower case). */
export function threeWordsOf(random: SeededRandom, input: AppendTurnInput): string | null {
  const words =
    turnText(input)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length < 3) return null;
  const start = random.integer(0, words.length - 3);
  return words.slice(start, start + 3).join(' ');
}

/** The turn with ` word` appended to its text (the string, or the first block that holds text). */
export function withWord(input: AppendTurnInput, word: string): AppendTurnInput {
  if (typeof input.content === 'string') return { ...input, content: `${input.content} ${word}` };
  let planted = false;
  const content = input.content.map((block): ContentBlock => {
    if (planted) return block;
    if (block.type === 'text') {
      planted = true;
      return { ...block, text: `${block.text} ${word}` };
    }
    if (block.type === 'tool_result' && typeof block.content === 'string') {
      planted = true;
      return { ...block, content: `${block.content} ${word}` };
    }
    return block;
  });
  if (!planted) throw new Error('search benchmark: a generated turn has no text to plant a word in');
  return { ...input, content };
}

/** The event with ` word` appended to its message text. */
export function eventWithWord(input: AppendEventInput, word: string): AppendEventInput {
  const payload = input.payload as Record<string, unknown>;
  return { ...input, payload: { ...payload, text: `${String(payload.text ?? '')} ${word}` } };
}
