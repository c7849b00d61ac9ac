// Which topics, and how much of each, go into a room of tokens. Pure, so the policy is tested on
// plain arrays (fit-topics.test.ts).
//
// When every topic fits whole, every topic goes in whole. When not, a topic is shown at the depth the
// room allows: its header saying how many lines `expand` brings back, and its most salient lines
// in their own order. That is what a forest of topics can do and one flat summary cannot:
// a context of any size carries every topic it can name, instead of a few whole ones and nothing of
// the rest (whole topics only kept the recently touched ones, and a topic larger than the room
// never appeared at all).
//
// Order of filling:
// 1. Topics near the query (similarity > 0), nearest first, each as deep as it goes: with a query,
//    the topic it is about matters more than a good line of another.
// 2. Then the lines of every other topic, one at a time, by salience per square root of cost, where
//    a topic's first line also pays for its header (and its note of lines left out): a topic enters when its
//    best line is worth that overhead, so one-line topics of chit-chat do not crowd out the facts
//    of a large topic, and a large topic shows as many of its lines as beat everything else.

import type { TokenCounter } from '@agent-ledger/core';

export interface TopicToFit {
  id: string;
  /** The stored block: a header line, then one line per summary line. */
  block: string;
  /** Its tokens whole (what the stored row says). */
  blockTokens: number;
  /** Root order: topics are shown in it, whatever was chosen first. */
  position: number;
  /** Logical time of the last change: larger is more recent. */
  touched: number;
  /** Similarity to the query; null without one. */
  similarity: number | null;
}

export interface FittedTopic {
  id: string;
  /** What is shown: the whole block, or its header (saying how many lines are left out) and its chosen lines. */
  block: string;
  tokens: number;
  similarity: number | null;
  /** Summary lines left out for room (0: shown whole). */
  linesLeftOut: number;
}

export interface FitTopicsOptions {
  tokenCounter: TokenCounter;
  /** One value per line of a topic block's body (its lines after the header); higher is kept first. */
  lineValues: (lines: readonly string[], topicId: string) => number[];
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

/** A blank line separates two blocks. */
const SEPARATOR_TOKENS = 1;

interface Line {
  text: string;
  tokens: number;
  value: number;
}

interface Candidate {
  topic: TopicToFit;
  header: string;
  headerTokens: number;
  lines: Line[];
  kept: Set<number>;
  /** Tokens of the kept lines. */
  keptTokens: number;
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
  for (const candidate of near) {
    for (const index of bestFirst(candidate)) fitting.tryAdd(candidate, index);
  }
  fitting.addGreedily(others);
  const headerOnly = fitting.headersThatFit(others);
  const chosen = enforceRoom(candidates, headerOnly, room, options.tokenCounter);
  const shown = new Set(chosen.map((topic) => topic.id));
  return {
    chosen,
    omittedTopicIds: ranked.filter((candidate) => !shown.has(candidate.topic.id)).map((candidate) => candidate.topic.id),
  };
}

/** A topic's line indexes, most value per token first. */
function bestFirst(candidate: Candidate): number[] {
  return candidate.lines
    .map((_, index) => index)
    .sort((a, b) => density(lineAt(candidate, b)) - density(lineAt(candidate, a)) || a - b);
}

/** One fitting of topics into a room: what is used so far, and what each added line costs. */
class Fitting {
  private used = 0;
  // What the header grows by when lines are left out: counted once per count of lines (the note's
  // length changes only with its number).
  private readonly noteTokens = new Map<number, number>();
  // The line break before each shown line (the estimate counts none; a real tokenizer one).
  private readonly breakTokens: number;

  constructor(
    private readonly counter: TokenCounter,
    private readonly room: number,
  ) {
    this.breakTokens = counter.countText('\n');
  }

  candidateOf(topic: TopicToFit, options: FitTopicsOptions): Candidate {
    const [header = '', ...body] = topic.block.split('\n');
    const values = options.lineValues(body, topic.id);
    return {
      topic,
      header,
      headerTokens: this.counter.countText(header),
      // Blank lines (a model's summary may have them) are neither shown nor counted as left out.
      lines: body
        .map((text, index) => ({ text, tokens: this.counter.countText(text) + this.breakTokens, value: values[index] ?? 0 }))
        .filter((line) => line.text.trim() !== ''),
      kept: new Set(),
      keptTokens: 0,
    };
  }

  /** Adds a line if the topic's new cost still fits; true when it did. */
  tryAdd(candidate: Candidate, index: number): boolean {
    const line = lineAt(candidate, index);
    const cost = this.addedCost(candidate, line);
    if (this.used + cost > this.room) return false;
    candidate.kept.add(index);
    candidate.keptTokens += line.tokens;
    this.used += cost;
    return true;
  }

  /**
   * Greedy by value per square root of cost, one line at a time; a topic's first line also pays for
   * its header (and the note of lines left out), so a topic enters only when its best line is worth
   * that overhead.
   */
  addGreedily(others: readonly Candidate[]): void {
    const queues = new Map(others.map((candidate) => [candidate, bestFirst(candidate)]));
    for (;;) {
      let best: { candidate: Candidate; index: number; score: number } | null = null;
      for (const [candidate, queue] of queues) {
        const index = queue[0];
        if (index === undefined) continue;
        const line = lineAt(candidate, index);
        const score = line.value / Math.sqrt(Math.max(8, this.addedCost(candidate, line)));
        if (!best || score > best.score) best = { candidate, index, score };
      }
      if (!best) break;
      (queues.get(best.candidate) as number[]).shift();
      this.tryAdd(best.candidate, best.index);
    }
  }

  /** Topics with no lines to choose from: the header alone, when it fits. */
  headersThatFit(others: readonly Candidate[]): Set<Candidate> {
    const headerOnly = new Set<Candidate>();
    for (const candidate of others) {
      if (candidate.lines.length === 0 && this.used + candidate.topic.blockTokens + SEPARATOR_TOKENS <= this.room) {
        headerOnly.add(candidate);
        this.used += candidate.topic.blockTokens + SEPARATOR_TOKENS;
      }
    }
    return headerOnly;
  }

  /** What showing one more line of a topic adds: the line, and its header the first time. */
  private addedCost(candidate: Candidate, line: Line): number {
    return (
      this.costOf(candidate, candidate.kept.size + 1, candidate.keptTokens + line.tokens) -
      this.costOf(candidate, candidate.kept.size, candidate.keptTokens)
    );
  }

  private costOf(candidate: Candidate, kept: number, lineTokens: number): number {
    return kept === 0 ? 0 : candidate.headerTokens + lineTokens + this.markerTokens(candidate, kept) + SEPARATOR_TOKENS;
  }

  private markerTokens(candidate: Candidate, kept: number): number {
    const leftOut = candidate.lines.length - kept;
    if (leftOut <= 0) return 0;
    let tokens = this.noteTokens.get(leftOut);
    if (tokens === undefined) {
      tokens = this.counter.countText(trimmedHeader('[]', leftOut)) - this.counter.countText('[]');
      this.noteTokens.set(leftOut, tokens);
    }
    return tokens;
  }
}

/**
 * Per-line costs are summed estimates; the rendered blocks are counted once more and the lowest-valued
 * lines go until they fit (a counter need not be additive over joined text).
 */
function enforceRoom(
  candidates: Candidate[],
  headerOnly: ReadonlySet<Candidate>,
  room: number,
  counter: TokenCounter,
): FittedTopic[] {
  for (;;) {
    const rendered = candidates
      .filter((candidate) => candidate.kept.size > 0 || headerOnly.has(candidate))
      .sort((a, b) => byPosition(a.topic, b.topic))
      .map((candidate) => render(candidate, counter));
    const total = rendered.reduce((sum, topic) => sum + topic.tokens + SEPARATOR_TOKENS, 0);
    if (total <= room) return rendered;
    let lowest: { candidate: Candidate; index: number } | null = null;
    for (const candidate of candidates) {
      for (const index of candidate.kept) {
        if (!lowest || density(lineAt(candidate, index)) < density(lineAt(lowest.candidate, lowest.index))) {
          lowest = { candidate, index };
        }
      }
    }
    // Only header-only blocks left and still over: a counter this far from additive gets no topics.
    if (!lowest) return [];
    lowest.candidate.kept.delete(lowest.index);
    lowest.candidate.keptTokens -= lineAt(lowest.candidate, lowest.index).tokens;
  }
}

function render(candidate: Candidate, counter: TokenCounter): FittedTopic {
  const { topic, lines, kept } = candidate;
  if (kept.size === lines.length) return whole(topic);
  const shown = lines.filter((_, index) => kept.has(index)).map((line) => line.text);
  const block = [trimmedHeader(candidate.header, lines.length - kept.size), ...shown].join('\n');
  return {
    id: topic.id,
    block,
    tokens: counter.countText(block),
    similarity: topic.similarity,
    linesLeftOut: lines.length - kept.size,
  };
}

function whole(topic: TopicToFit): FittedTopic {
  return { id: topic.id, block: topic.block, tokens: topic.blockTokens, similarity: topic.similarity, linesLeftOut: 0 };
}

function lineAt(candidate: Candidate, index: number): Line {
  return candidate.lines[index] as Line;
}

// As the extractive summarizer ranks sentences: value per square root of cost, so a short fact beats
// a long sentence holding two without three-word fragments winning on density alone.
function density(line: Line): number {
  return line.value / Math.sqrt(Math.max(8, line.tokens));
}

function byPosition(a: { position: number }, b: { position: number }): number {
  return a.position - b.position;
}
