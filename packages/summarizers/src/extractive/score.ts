// Ranks sentences by the specific, rare information they carry, so a tight budget keeps facts over chatter.

import { STOPWORDS, WORD_PATTERN } from '@agent-ledger/core';

interface Feature {
  pattern: RegExp;
  /** A cheap test the text must pass first: most sentences lack a digit, a slash or an underscore. */
  only?: RegExp;
  weight: number;
  /** Past a few matches a sentence is usually a list or a dump, not more informative. */
  cap: number;
}

// Each pattern must not match the empty string (countMatches loops on exec).
const FEATURES: readonly Feature[] = [
  { pattern: /\bhttps?:\/\/[^\s)>\]"'`]+/g, only: /:\/\//, weight: 2, cap: 2 },
  { pattern: /\b\d{1,3}(?:\.\d{1,3}){3}\b/g, only: /\d\.\d/, weight: 2, cap: 2 },
  { pattern: /\bv?\d+\.\d+(?:\.\d+)+\b|\bv\d+(?:\.\d+)?\b/g, only: /\d\.\d|v\d/, weight: 2, cap: 3 },
  { pattern: /(?:^|[^\w:/])(?:~|\.{1,2})?\/[\w.@-]+(?:\/[\w.@-]*)*/g, only: /\//, weight: 2, cap: 2 },
  { pattern: /\b[\w.-]+(?:\/[\w.-]+){2,}/g, only: /\//, weight: 2, cap: 2 },
  {
    pattern:
      /\b[\w-]+\.(?:tsx?|jsx?|mjs|cjs|json|ya?ml|toml|ini|conf|cfg|env|md|txt|log|py|rb|go|rs|java|kt|c|h|cpp|hpp|cs|php|sh|sql|db|sqlite|csv|xml|html|css|scss|lock|tf|proto|gradle|vue|svelte)\b/gi,
    only: /\.\w/,
    weight: 2,
    cap: 2,
  },
  { pattern: /`[^`\n]+`/g, only: /`/, weight: 2, cap: 3 },
  // camelCase and PascalCase with an inner capital (MySQL, getUserById).
  { pattern: /\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b/g, only: /[a-z0-9][A-Z]/, weight: 1.5, cap: 3 },
  { pattern: /\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b/g, only: /_/, weight: 1.5, cap: 3 },
  { pattern: /\b[A-Z][A-Z0-9]{2,}\b/g, weight: 1, cap: 2 },
  // kebab-case only when it carries a digit (db-3, us-east-1): plain hyphenated words are prose.
  { pattern: /\b(?=[A-Za-z0-9-]*\d)[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b/g, only: /\d/, weight: 1.5, cap: 3 },
  { pattern: /(?:^|\s)--?[A-Za-z][\w-]*/g, only: /-/, weight: 1.5, cap: 3 },
  { pattern: /\b\d+(?:[.,]\d+)*/g, only: /\d/, weight: 1, cap: 3 },
  { pattern: /\bports?\s*:?\s*\d{2,5}\b|\b[\w.-]+:\d{2,5}\b/gi, only: /\d/, weight: 1.5, cap: 2 },
  {
    pattern:
      /\b(?:errors?|exceptions?|failed|failures?|fatal|panic(?:ked)?|traceback|refused|denied|timed out|timeouts?|crash(?:ed|es)?|segfault|stack ?trace|errno|exit (?:code|status))\b/gi,
    weight: 1.5,
    cap: 2,
  },
  { pattern: /\b(?:E[A-Z]{3,}|[A-Z]\w*(?:Error|Exception)|[A-Z]{1,4}-?\d{3,5}|HTTP ?[1-5]\d\d)\b/g, weight: 2, cap: 2 },
  { pattern: /\b[\w.+-]+@[\w-]+\.[\w.-]+\b/g, only: /@/, weight: 2, cap: 1 },
  { pattern: /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b/g, only: /\d/, weight: 1.5, cap: 1 },
  { pattern: /"[^"\n]{2,80}"/g, only: /"/, weight: 1, cap: 2 },
  // What happened to the speaker: a first-person event ("I adopted", "we just finished", "I've been
  // volunteering"). In conversation these are the facts later questions ask about; replies about
  // the other person ("that's so inspiring") are not (measured on LoCoMo's evidence tags).
  {
    pattern:
      /\b(?:I|we|I've|we've|I'm|we're)\s+(?:just\s+|finally\s+|recently\s+|also\s+|actually\s+|been\s+)?(?:\w{3,}ed|went|got|took|made|had|won|began|found|ran|gave|saw|bought|met|did|lost|left|sold|wrote|built|became|brought|taught|caught|felt|kept|threw|heard|read|spent|flew|drove|moved|joined|started|\w{3,}ing)\b/gi,
    weight: 1.5,
    cap: 1,
  },
  // When it happened: relative dates anchor an event in time (temporal questions need them).
  {
    pattern:
      /\b(?:yesterday|tomorrow|tonight|last (?:week|weekend|month|year|night|summer|winter|spring|fall|time)|next (?:week|weekend|month|year)|(?:a|one|two|three|few|couple of|several) (?:days?|weeks?|months?|years?) ago|this (?:week|weekend|month|year|morning)|(?:on|since|in|by) (?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December))\b/gi,
    weight: 1.5,
    cap: 1,
  },
  // Decisions and constraints are what a later turn most needs to remember.
  {
    pattern:
      /\b(?:decided|agreed|chose|choose|must|never|always|instead|because|root cause|deadline|requirement|do not|don't|won't|todo)\b/gi,
    weight: 1,
    cap: 1,
  },
];

// A capital inside a sentence is usually a name (Postgres, Alice, Kubernetes).
const INNER_CAPITALIZED = /(?<=[\s(,;:"'])\p{Lu}[\p{L}\p{N}]*/gu;
const CAPITALIZED_WEIGHT = 1;
const CAPITALIZED_CAP = 3;

const TERM = WORD_PATTERN;

// Words of pleasantries and acknowledgements; a sentence made only of these and stopwords says nothing.
const FILLER_WORDS = new Set(
  (
    'thanks thank thx ty ok okay k sounds sound good great let know got sure thing cool nice awesome perfect problem np yes ' +
    "yeah yep yup no nope alright right will do makes sense hi hello hey cheers happy help hope helps glad you're welcome " +
    'lgtm appreciate appreciated course absolutely exactly indeed fine done wow haha lol please anything else feel free ' +
    'question lot much really totally definitely'
  ).split(' '),
);
// Phrases that wrap a request in politeness; alone they carry nothing.
const SOFT_FILLER =
  /\b(?:let me know|hope (?:this|that) helps|happy to help|feel free|thanks?|thank you|sounds good|no problem)\b/i;
const QUESTION = /\?["')\]]*$/;

// Pure pleasantries carry nothing a later turn needs; a zero score keeps them out even with room to spare.
const PURE_FILLER_FACTOR = 0;
const SOFT_FILLER_FACTOR = 0.4;
const VAGUE_QUESTION_FACTOR = 0.3;
/** Sentences from the previous summary already survived one compaction. */
const PREVIOUS_SUMMARY_FACTOR = 1.25;
const INSTRUCTION_BOOST_PER_MATCH = 1;
const INSTRUCTION_MATCH_CAP = 3;
const RARITY_WEIGHT = 0.75;
const RARITY_CAP = 6;
/** Sentences above this many tokens pay for their length (by its square root). */
const TOKENS_BEFORE_LENGTH_PENALTY = 16;
const BASE_SCORE = 0.05;

export interface ScoringInput {
  text: string;
  tokens: number;
  fromPreviousSummary: boolean;
}

/** Lowercased distinct words of a text, in order of first appearance. */
export function extractTerms(text: string): string[] {
  return [...new Set(text.toLowerCase().match(TERM))];
}

/** How many specific details (numbers, versions, paths, identifiers, names, errors) a sentence carries. */
export function specificityOf(text: string): number {
  let total = 0;
  for (const feature of FEATURES) {
    if (feature.only && !feature.only.test(text)) continue;
    total += feature.weight * countMatches(feature.pattern, text, feature.cap);
  }
  let names = 0;
  for (const match of text.matchAll(INNER_CAPITALIZED)) {
    if (names >= CAPITALIZED_CAP) break;
    if (match[0] !== 'I' && !STOPWORDS.has(match[0].toLowerCase())) names += 1;
  }
  return total + CAPITALIZED_WEIGHT * names;
}

export function documentFrequencies(termLists: readonly (readonly string[])[]): Map<string, number> {
  const frequencies = new Map<string, number>();
  for (const terms of termLists) {
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
  }
  return frequencies;
}

/** Scores every sentence of one summarize call; rarity is measured against these sentences only. */
export function scoreSentences(
  sentences: readonly ScoringInput[],
  termLists: readonly (readonly string[])[],
  frequencies: ReadonlyMap<string, number>,
  instructions: string | undefined,
): number[] {
  const rarityOf = rarityByFrequency(sentences.length);
  const stems = new Map<string, string>();
  const cachedStem = (term: string): string => {
    let result = stems.get(term);
    if (result === undefined) {
      result = stem(term);
      stems.set(term, result);
    }
    return result;
  };
  const instructionStems = new Set(contentTerms(extractTerms(instructions ?? '')).map(cachedStem));

  return sentences.map((sentence, index) => {
    let rarity = 0;
    let onlyFillerWords = true;
    let matchedStems: Set<string> | undefined;
    for (const term of termLists[index] ?? []) {
      if (STOPWORDS.has(term)) continue;
      rarity += rarityOf(frequencies.get(term) ?? 1);
      if (!FILLER_WORDS.has(term)) onlyFillerWords = false;
      if (instructionStems.size > 0) {
        const termStem = cachedStem(term);
        if (instructionStems.has(termStem)) {
          matchedStems ??= new Set();
          matchedStems.add(termStem);
        }
      }
    }
    const specificity = specificityOf(sentence.text);
    const lengthPenalty = Math.sqrt(Math.max(1, sentence.tokens / TOKENS_BEFORE_LENGTH_PENALTY));
    let score = BASE_SCORE + (specificity + RARITY_WEIGHT * Math.min(RARITY_CAP, rarity)) / lengthPenalty;

    if (specificity === 0) {
      if (onlyFillerWords) score *= PURE_FILLER_FACTOR;
      else if (SOFT_FILLER.test(sentence.text)) score *= SOFT_FILLER_FACTOR;
      if (QUESTION.test(sentence.text)) score *= VAGUE_QUESTION_FACTOR;
    }
    if (sentence.fromPreviousSummary) score *= PREVIOUS_SUMMARY_FACTOR;
    score *= 1 + INSTRUCTION_BOOST_PER_MATCH * Math.min(INSTRUCTION_MATCH_CAP, matchedStems?.size ?? 0);
    return score;
  });
}

/** Inverse document frequency over this input's sentences, scaled so a word found in one sentence scores 1. */
function rarityByFrequency(sentenceCount: number): (frequency: number) => number {
  if (sentenceCount < 2) return () => 0;
  const logCount = Math.log(sentenceCount);
  // Few distinct frequencies occur, so each logarithm is taken once.
  const cache: number[] = [];
  return (frequency) => {
    let rarity = cache[frequency];
    if (rarity === undefined) {
      rarity = (logCount - Math.log(frequency)) / logCount;
      cache[frequency] = rarity;
    }
    return rarity;
  };
}

function contentTerms(terms: readonly string[]): string[] {
  return terms.filter((term) => !STOPWORDS.has(term));
}

// Just enough stemming that "decisions" meets "decision" and "databases" meets "database".
function stem(term: string): string {
  let result = term;
  for (const suffix of ['ing', 'ed', 's']) {
    if (result.endsWith(suffix) && !result.endsWith('ss') && result.length - suffix.length >= 3) {
      result = result.slice(0, -suffix.length);
      break;
    }
  }
  return result.length > 3 && result.endsWith('e') ? result.slice(0, -1) : result;
}

function countMatches(pattern: RegExp, text: string, cap: number): number {
  pattern.lastIndex = 0;
  let count = 0;
  while (count < cap && pattern.exec(text) !== null) count += 1;
  pattern.lastIndex = 0;
  return count;
}
