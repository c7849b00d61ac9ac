// Which topics, and how much of each, go into a room of tokens. Pure, so the policy is tested on
// plain arrays (fit-topics.test.ts).
//
// When every topic fits whole, every topic goes in whole. When not, a topic is shown at the depth the
// room allows: its header saying how many lines `expand` brings back, and its most salient sentences
// in their own order, each under its line's citation (topic-lines.ts; a line shown without all its
// sentences ends with `…`). That is what a forest of topics can do and one flat summary cannot:
// a context of any size carries every topic it can name, instead of a few whole ones and nothing of
// the rest (whole topics only kept the recently touched ones, and a topic larger than the room
// never appeared at all).
//
// Order of filling:
// 1. Topics near the query (similarity > 0), nearest first, each as deep as it goes: with a query,
//    the topic it is about matters more than a good line of another.
// 2. Then the sentences of every other topic, one at a time, by salience per square root of cost,
//    where a topic's first sentence also pays for its header (and its note of lines left out) and a
//    line's first sentence for its citation: a topic enters when its best sentence is worth that
//    overhead, so one-line topics of chit-chat do not crowd out the facts of a large topic, and a
//    large topic shows as many of its sentences as beat everything else.
//
// Sentences rather than lines: a line holds every sentence one turn gave the summary (on LoCoMo at
// 2,000 tokens, lines of two or more sentences held a fifth of the stored tokens), so showing a turn
// by its best sentence cites more turns in the same room (docs/benchmarks.md). Topics near the query
// still take whole lines (step 1): salience does not know which sentence the question is about.

import type { TokenCounter } from '@agent-ledger/core';
import {
  bestLinesFirst,
  type Candidate,
  density,
  type FitTopicsOptions,
  Fitting,
  SEPARATOR_TOKENS,
  type TopicToFit,
  unitAt,
} from './topic-fitting.ts';
import { renderTopicLine, trimmedHeader } from './topic-lines.ts';

export type { FitTopicsOptions, TopicToFit } from './topic-fitting.ts';
export { trimmedHeader } from './topic-lines.ts';

export interface FittedTopic {
  id: string;
  /** What is shown: the whole block, or its header (saying how many lines are left out) and its chosen lines. */
  block: string;
  tokens: number;
  similarity: number | null;
  /** Summary lines left out for room; a line shown without some of its sentences ends with `…` instead. */
  linesLeftOut: number;
}

export function fitTopics(
  topics: readonly TopicToFit[],
  room: number,
  options: FitTopicsOptions,
): { chosen: FittedTopic[]; omittedTopicIds: string[] } {
  const wholeTokens = topics.reduce((total, topic) => total + topic.blockTokens + SEPARATOR_TOKENS, 0);
  if (wholeTokens <= room) {
    return {
      chosen: [...topics].sort(byPosition).map((topic) => whole(topic)),
      omittedTopicIds: [],
    };
  }
  const fitting = new Fitting(options.tokenCounter, room);
  const candidates = topics.map((topic) => fitting.candidateOf(topic, options));
  const ranked = [...candidates].sort(
    (a, b) =>
      (b.topic.similarity ?? 0) - (a.topic.similarity ?? 0) || b.topic.touched - a.topic.touched || byPosition(a.topic, b.topic),
  );
  const near = ranked.filter((candidate) => (candidate.topic.similarity ?? 0) > 0);
  const others = ranked.filter((candidate) => (candidate.topic.similarity ?? 0) <= 0);
  // Whole lines for topics near the query: the sentence a question is about may be any of its
  // turn's, and salience alone does not know which (sentences there cost the hybrid context three
  // LoCoMo questions; whole lines none).
  for (const candidate of near) {
    const values = options.lineValues(
      candidate.lines.map((line) => line.text),
      candidate.topic.id,
      'line',
    );
    for (const line of bestLinesFirst(candidate, values)) fitting.tryAddLine(candidate, line);
  }
  fitting.addGreedily(others);
  const headerOnly = fitting.headersThatFit(others);
  const chosen = enforceRoom({ candidates, headerOnly, room, fitting });
  const shown = new Set(chosen.map((topic) => topic.id));
  return {
    chosen,
    omittedTopicIds: ranked.filter((candidate) => !shown.has(candidate.topic.id)).map((candidate) => candidate.topic.id),
  };
}

/**
 * Per-sentence costs are estimates; the rendered blocks are counted once more and the lowest-valued
 * sentences go until they fit (a counter need not be additive over joined text).
 */
function enforceRoom(input: {
  candidates: Candidate[];
  headerOnly: ReadonlySet<Candidate>;
  room: number;
  fitting: Fitting;
}): FittedTopic[] {
  const { candidates, headerOnly, room, fitting } = input;
  for (;;) {
    const rendered = candidates
      .filter((candidate) => candidate.kept.size > 0 || headerOnly.has(candidate))
      .sort((a, b) => byPosition(a.topic, b.topic))
      .map((candidate) => render(candidate, fitting.counter));
    const total = rendered.reduce((sum, topic) => sum + topic.tokens + SEPARATOR_TOKENS, 0);
    if (total <= room) return rendered;
    let lowest: { candidate: Candidate; index: number } | null = null;
    for (const candidate of candidates) {
      for (const index of candidate.kept) {
        if (!lowest || density(unitAt(candidate, index)) < density(unitAt(lowest.candidate, lowest.index))) {
          lowest = { candidate, index };
        }
      }
    }
    // Only header-only blocks left and still over: a counter this far from additive gets no topics.
    if (!lowest) return [];
    fitting.remove(lowest.candidate, lowest.index);
  }
}

function render(candidate: Candidate, counter: TokenCounter): FittedTopic {
  const { topic, units, kept, lines } = candidate;
  if (kept.size === units.length) return whole(topic);
  const shown = lines
    .map((line, index) => ({ line, sentences: candidate.keptByLine[index] ?? new Set<number>() }))
    .filter(({ sentences }) => sentences.size > 0)
    .map(({ line, sentences }) => renderTopicLine(line, sentences));
  const linesLeftOut = lines.length - shown.length;
  const block = [linesLeftOut > 0 ? trimmedHeader(candidate.header, linesLeftOut) : candidate.header, ...shown].join('\n');
  return { id: topic.id, block, tokens: counter.countText(block), similarity: topic.similarity, linesLeftOut };
}

function whole(topic: TopicToFit): FittedTopic {
  return { id: topic.id, block: topic.block, tokens: topic.blockTokens, similarity: topic.similarity, linesLeftOut: 0 };
}

function byPosition(a: { position: number }, b: { position: number }): number {
  return a.position - b.position;
}
