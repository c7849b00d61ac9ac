// The offline default summarizer: keeps the most specific sentences that fit the budget, each cited by its turn id.

import { estimateTokenCounter, LedgerError, SummarizerError, type TokenCounter } from '@agent-ledger/core';
import type { SummarizeInput, SummarizeResult, Summarizer, SummarySource } from '../summarizer.ts';
import { NearDuplicateIndex, WordNumbering } from './near-duplicates.ts';
import { documentFrequencies, extractTerms, scoreSentences } from './score.ts';
import { clipToTokens, splitIntoUnits } from './sentences.ts';
import { formatSummary, parseSummary, type SourcedSentence } from './summary-format.ts';

export interface ExtractiveSummarizerOptions {
  /** Counts the budget; defaults to the ledger's estimate so summaries and contexts agree on sizes. */
  tokenCounter?: TokenCounter;
}

const SUMMARIZER_NAME = 'extractive';
// Ranking divides a sentence's score by the square root of its cost: short facts beat long sentences
// that hold two, without letting three-word fragments win on density alone (measured on the devops set).
const DENSITY_EXPONENT = 0.5;

interface Candidate extends SourcedSentence {
  /** Consecutive candidates from one source print on one line, so only the first pays for `[id] `. */
  group: number;
  fromPreviousSummary: boolean;
  tokens: number;
  /** Tokens this sentence adds when it starts its line. */
  lineCost: number;
  /** Tokens it adds when its line already exists. */
  joinCost: number;
}

export function createExtractiveSummarizer(options: ExtractiveSummarizerOptions = {}): Summarizer {
  const counter = options.tokenCounter ?? estimateTokenCounter;
  return {
    name: SUMMARIZER_NAME,
    async summarize(input: SummarizeInput): Promise<SummarizeResult> {
      const { targetTokens } = input;
      if (typeof targetTokens !== 'number' || !Number.isFinite(targetTokens) || targetTokens <= 0) {
        throw new SummarizerError(`targetTokens must be a positive finite number, got ${String(targetTokens)}.`, SUMMARIZER_NAME);
      }
      try {
        return summarize(input, targetTokens, counter);
      } catch (error) {
        if (LedgerError.isInstance(error)) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new SummarizerError(`The extractive summarizer failed: ${reason}`, SUMMARIZER_NAME, { cause: error });
      }
    },
  };
}

function summarize(input: SummarizeInput, targetTokens: number, counter: TokenCounter): SummarizeResult {
  const previousSummary = input.previousSummary ?? '';
  let inputTokens = counter.countText(previousSummary);
  for (const turn of input.turns) inputTokens += counter.countText(turn.text);

  const candidates = collectCandidates(previousSummary, input, counter);
  const termLists = candidates.map((candidate) => extractTerms(candidate.text));
  const frequencies = documentFrequencies(termLists);
  const scores = scoreSentences(candidates, termLists, frequencies, input.instructions);

  const numbering = new WordNumbering(frequencies);
  const wordSetOf = (index: number): Int32Array => numbering.wordSet(termLists[index] ?? []);
  const selected = selectWithinBudget(candidates, scores, wordSetOf, targetTokens);
  const { kept, text, outputTokens } = enforceBudget(selected, { candidates, scores, targetTokens, counter });
  const sources: SummarySource[] = kept.map((index) => {
    const candidate = candidates[index] as Candidate;
    return { turnId: candidate.sourceId, text: candidate.text };
  });
  return { text, usage: { inputTokens, outputTokens }, sources };
}

/** Every sentence that may enter the summary, in output order: the previous summary's, then each turn's. */
function collectCandidates(previousSummary: string, input: SummarizeInput, counter: TokenCounter): Candidate[] {
  const candidates: Candidate[] = [];
  let group = -1;
  let lastSourceId: string | undefined;
  // Costs are estimated as sums so each sentence is counted once; enforceBudget corrects any drift.
  const spaceTokens = counter.countText(' ');
  const prefixTokens = new Map<string, number>();
  const linePrefixTokens = (sourceId: string): number => {
    let tokens = prefixTokens.get(sourceId);
    if (tokens === undefined) {
      tokens = counter.countText(`\n[${sourceId}] `);
      prefixTokens.set(sourceId, tokens);
    }
    return tokens;
  };
  const add = (sourceId: string, unit: string, fromPreviousSummary: boolean): void => {
    const { text, tokens } = clipToTokens(unit, counter);
    if (text === '') return;
    if (sourceId !== lastSourceId) group += 1;
    lastSourceId = sourceId;
    candidates.push({
      sourceId,
      text,
      group,
      fromPreviousSummary,
      tokens,
      lineCost: linePrefixTokens(sourceId) + tokens,
      joinCost: spaceTokens + tokens,
    });
  };

  for (const sentence of parseSummary(previousSummary)) add(sentence.sourceId, sentence.text, true);
  for (const turn of input.turns) {
    for (const unit of splitIntoUnits(turn.text)) add(turn.id, unit, false);
  }
  return candidates;
}

/** Greedy by score: take each sentence that still fits and restates nothing already taken. */
function selectWithinBudget(
  candidates: readonly Candidate[],
  scores: readonly number[],
  wordSetOf: (index: number) => Int32Array,
  targetTokens: number,
): number[] {
  // Best value per token first: a short sentence holding one fact beats a long one holding two.
  const valuePerToken = (index: number) =>
    scoreOf(scores, index) / Math.max(8, (candidates[index] as Candidate).lineCost) ** DENSITY_EXPONENT;
  const byScore = candidates
    .map((_, index) => index)
    .sort((left, right) => valuePerToken(right) - valuePerToken(left) || left - right);
  const duplicates = new NearDuplicateIndex();
  const startedGroups = new Set<number>();
  const selected: number[] = [];
  let used = 0;
  for (const index of byScore) {
    if (scoreOf(scores, index) <= 0) continue;
    const candidate = candidates[index] as Candidate;
    const cost = startedGroups.has(candidate.group) ? candidate.joinCost : candidate.lineCost;
    if (used + cost > targetTokens) continue;
    const words = wordSetOf(index);
    if (duplicates.isNearDuplicate(words)) continue;
    duplicates.add(words);
    startedGroups.add(candidate.group);
    selected.push(index);
    used += cost;
  }
  return selected.sort((left, right) => left - right);
}

/** What enforceBudget trims against: every candidate with its score, the target and its counter. */
interface Budget {
  candidates: readonly Candidate[];
  scores: readonly number[];
  targetTokens: number;
  counter: TokenCounter;
}

/**
 * The per-sentence costs are estimates for counters that are not additive over concatenation, so the
 * formatted text is counted once more and the lowest-scoring sentences go until it fits.
 */
function enforceBudget(selected: readonly number[], budget: Budget): { kept: number[]; text: string; outputTokens: number } {
  const { candidates, scores, targetTokens, counter } = budget;
  let kept = [...selected];
  let text = formatSummary(kept.map((index) => candidates[index] as Candidate));
  let outputTokens = counter.countText(text);
  const lowestFirst = [...kept].sort((left, right) => scoreOf(scores, left) - scoreOf(scores, right) || right - left);
  let cursor = 0;
  while (outputTokens > targetTokens && cursor < lowestFirst.length) {
    const dropped = new Set<number>();
    let freed = 0;
    // Drop about as much as the overflow in one pass, so a large overshoot needs few recounts.
    while (freed < outputTokens - targetTokens && cursor < lowestFirst.length) {
      const index = lowestFirst[cursor] as number;
      cursor += 1;
      dropped.add(index);
      freed += (candidates[index] as Candidate).lineCost;
    }
    kept = kept.filter((index) => !dropped.has(index));
    text = formatSummary(kept.map((index) => candidates[index] as Candidate));
    outputTokens = counter.countText(text);
  }
  if (outputTokens > targetTokens) {
    throw new SummarizerError(
      `Token counter "${counter.name}" counts even an empty summary as over ${targetTokens} tokens.`,
      SUMMARIZER_NAME,
    );
  }
  return { kept, text, outputTokens };
}

function scoreOf(scores: readonly number[], index: number): number {
  return scores[index] ?? 0;
}
