// One fitting of topics' sentences into a room of tokens: what each candidate topic keeps so far and
// what one more sentence would cost. The policy (which topics first, when to stop) is fit-topics.ts.

import type { TokenCounter } from '@agent-ledger/core';
import { renderTopicLine, type TopicLine, topicLines, trimmedHeader } from './topic-lines.ts';

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

export interface FitTopicsOptions {
  tokenCounter: TokenCounter;
  /**
   * One value per text, higher kept first: the sentences of a topic block's body (its lines after
   * the header, each split into sentences, in order) or, for a topic near the query, its lines.
   */
  lineValues: (texts: readonly string[], topicId: string, unit: 'sentence' | 'line') => number[];
}

/** A blank line separates two blocks. */
export const SEPARATOR_TOKENS = 1;

/** One sentence of a topic's body: the line it belongs to and its place there. */
export interface Unit {
  line: number;
  sentence: number;
  /** Its own tokens and a line break: what ranks it within its topic. */
  tokens: number;
  value: number;
}

export interface Candidate {
  topic: TopicToFit;
  header: string;
  headerTokens: number;
  lines: TopicLine[];
  units: Unit[];
  /** Kept units, by index in `units`. */
  kept: Set<number>;
  /** Each line's kept sentences, by index in its `sentences`. */
  keptByLine: Set<number>[];
  /** Tokens of each line whole, its break included. */
  lineCosts: number[];
  /** Tokens of each line as shown with its kept sentences (its break included); 0 when none is kept. */
  lineTokens: number[];
  /** Tokens of the lines shown. */
  keptTokens: number;
  /** Lines with at least one kept sentence. */
  keptLines: number;
}

export class Fitting {
  private used = 0;
  // What the header grows by when lines are left out: counted once per count of lines (the note's
  // length changes only with its number).
  private readonly noteTokens = new Map<number, number>();
  // The line break before each shown line (the estimate counts none; a real tokenizer one).
  private readonly breakTokens: number;

  constructor(
    readonly counter: TokenCounter,
    private readonly room: number,
  ) {
    this.breakTokens = counter.countText('\n');
  }

  candidateOf(topic: TopicToFit, options: FitTopicsOptions): Candidate {
    const [header = '', ...body] = topic.block.split('\n');
    // Blank lines (a model's summary may have them) are neither shown nor counted as left out.
    const lines = topicLines(body);
    const places = lines.flatMap((line, lineIndex) =>
      line.sentences.map((text, sentence) => ({ line: lineIndex, sentence, text })),
    );
    const values = options.lineValues(
      places.map((place) => place.text),
      topic.id,
      'sentence',
    );
    return {
      topic,
      header,
      headerTokens: this.counter.countText(header),
      lines,
      units: places.map((place, index) => ({
        line: place.line,
        sentence: place.sentence,
        tokens: this.counter.countText(place.text) + this.breakTokens,
        value: values[index] ?? 0,
      })),
      lineCosts: lines.map((line) => this.counter.countText(line.text) + this.breakTokens),
      kept: new Set(),
      keptByLine: lines.map(() => new Set<number>()),
      lineTokens: lines.map(() => 0),
      keptTokens: 0,
      keptLines: 0,
    };
  }

  /** Adds a sentence if the topic's new cost still fits; true when it did. */
  tryAdd(candidate: Candidate, index: number): boolean {
    const unit = unitAt(candidate, index);
    const lineTokens = this.lineTokensWith(candidate, unit.line, index, true);
    const cost = this.addedCost(candidate, unit.line, lineTokens);
    if (this.used + cost > this.room) return false;
    this.setLine(candidate, unit.line, lineTokens);
    candidate.kept.add(index);
    candidate.keptByLine[unit.line]?.add(unit.sentence);
    this.used += cost;
    return true;
  }

  /** Adds a whole line (every sentence of it) if the topic's new cost still fits; true when it did. */
  tryAddLine(candidate: Candidate, line: number): boolean {
    const lineTokens = candidate.lineCosts[line] ?? 0;
    const cost = this.addedCost(candidate, line, lineTokens);
    if (this.used + cost > this.room) return false;
    this.setLine(candidate, line, lineTokens);
    candidate.units.forEach((unit, index) => {
      if (unit.line !== line) return;
      candidate.kept.add(index);
      candidate.keptByLine[line]?.add(unit.sentence);
    });
    this.used += cost;
    return true;
  }

  /** Takes a kept sentence out (enforcing the room after counting the rendered text). */
  remove(candidate: Candidate, index: number): void {
    const unit = unitAt(candidate, index);
    const before = this.costOf(candidate, candidate.keptLines, candidate.keptTokens);
    this.setLine(candidate, unit.line, this.lineTokensWith(candidate, unit.line, index, false));
    candidate.kept.delete(index);
    candidate.keptByLine[unit.line]?.delete(unit.sentence);
    this.used -= before - this.costOf(candidate, candidate.keptLines, candidate.keptTokens);
  }

  /**
   * Greedy by value per square root of cost, one sentence at a time; a topic's first sentence also
   * pays for its header (and the note of lines left out), a line's first for its citation, so a topic
   * enters only when its best sentence is worth that overhead.
   */
  addGreedily(others: readonly Candidate[]): void {
    const queues = new Map(others.map((candidate) => [candidate, bestFirst(candidate)]));
    for (;;) {
      let best: { candidate: Candidate; index: number; score: number } | null = null;
      for (const [candidate, queue] of queues) {
        const index = queue[0];
        if (index === undefined) continue;
        const unit = unitAt(candidate, index);
        const cost = this.addedCost(candidate, unit.line, this.lineTokensWith(candidate, unit.line, index, true));
        const score = unit.value / Math.sqrt(Math.max(8, cost));
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
      if (candidate.units.length === 0 && this.used + candidate.topic.blockTokens + SEPARATOR_TOKENS <= this.room) {
        headerOnly.add(candidate);
        this.used += candidate.topic.blockTokens + SEPARATOR_TOKENS;
      }
    }
    return headerOnly;
  }

  /** Tokens of a line (its break included) with one sentence added or taken out; 0 when none is left. */
  private lineTokensWith(candidate: Candidate, line: number, index: number, keep: boolean): number {
    const sentences = new Set(candidate.keptByLine[line]);
    const sentence = unitAt(candidate, index).sentence;
    if (keep) sentences.add(sentence);
    else sentences.delete(sentence);
    if (sentences.size === 0) return 0;
    return this.counter.countText(renderTopicLine(candidate.lines[line] as TopicLine, sentences)) + this.breakTokens;
  }

  private setLine(candidate: Candidate, line: number, tokens: number): void {
    const previous = candidate.lineTokens[line] ?? 0;
    candidate.keptLines += (tokens > 0 ? 1 : 0) - (previous > 0 ? 1 : 0);
    candidate.keptTokens += tokens - previous;
    candidate.lineTokens[line] = tokens;
  }

  /** What the topic's cost grows by when a line's tokens become `lineTokens`. */
  private addedCost(candidate: Candidate, line: number, lineTokens: number): number {
    const previous = candidate.lineTokens[line] ?? 0;
    const keptLines = candidate.keptLines + (previous === 0 && lineTokens > 0 ? 1 : 0);
    return (
      this.costOf(candidate, keptLines, candidate.keptTokens - previous + lineTokens) -
      this.costOf(candidate, candidate.keptLines, candidate.keptTokens)
    );
  }

  private costOf(candidate: Candidate, keptLines: number, lineTokens: number): number {
    return keptLines === 0 ? 0 : candidate.headerTokens + lineTokens + this.markerTokens(candidate, keptLines) + SEPARATOR_TOKENS;
  }

  private markerTokens(candidate: Candidate, keptLines: number): number {
    const leftOut = candidate.lines.length - keptLines;
    if (leftOut <= 0) return 0;
    let tokens = this.noteTokens.get(leftOut);
    if (tokens === undefined) {
      tokens = this.counter.countText(trimmedHeader('[]', leftOut)) - this.counter.countText('[]');
      this.noteTokens.set(leftOut, tokens);
    }
    return tokens;
  }
}

/** A topic's line indexes, most value per token first (`values`: one per line). */
export function bestLinesFirst(candidate: Candidate, values: readonly number[]): number[] {
  const density = (line: number) => (values[line] ?? 0) / Math.sqrt(Math.max(8, candidate.lineCosts[line] ?? 0));
  return candidate.lines.map((_, index) => index).sort((a, b) => density(b) - density(a) || a - b);
}

/** A topic's sentence indexes, most value per token first. */
export function bestFirst(candidate: Candidate): number[] {
  return candidate.units
    .map((_, index) => index)
    .sort((a, b) => density(unitAt(candidate, b)) - density(unitAt(candidate, a)) || a - b);
}

export function unitAt(candidate: Candidate, index: number): Unit {
  return candidate.units[index] as Unit;
}

// As the extractive summarizer ranks sentences: value per square root of cost, so a short fact beats
// a long sentence holding two without three-word fragments winning on density alone.
export function density(unit: Unit): number {
  return unit.value / Math.sqrt(Math.max(8, unit.tokens));
}
