// Pure scoring for the recall evaluation: one context against one question (AP, ATR, ER_all,
// ER_frac of ../shared/data/README.md, and answer containment as peers report it), and which turn a
// question is asked at. No ledger, no I/O: run-conversation.ts builds the contexts and hands their
// text here.

import { STOPWORDS } from '../../packages/core/src/index.ts';

const NOT_WORD_OR_SPACE = /[^\p{L}\p{M}\p{N}\s]/gu;

/** Lower-case, punctuation (anything not a letter, digit or space) removed, whitespace collapsed. */
export function normalizeText(text: string): string {
  return text.toLowerCase().replace(NOT_WORD_OR_SPACE, '').replace(/\s+/g, ' ').trim();
}

const ARTICLES: ReadonlySet<string> = new Set(['a', 'an', 'the']);

/**
 * SQuAD's answer normalisation (lower-case, punctuation and the articles a, an, the removed,
 * whitespace collapsed), which QA papers compare answers by: normalizeText without the articles, so
 * "the Sony A7" and "a Sony A7" match.
 */
export function normalizeAnswer(text: string): string {
  return normalizeText(text)
    .split(' ')
    .filter((word) => word !== '' && !ARTICLES.has(word))
    .join(' ');
}

// Normalised like the text they are looked up in ("don't" → "dont").
const NORMALIZED_STOPWORDS: ReadonlySet<string> = new Set([...STOPWORDS].map(normalizeText));

/**
 * `phrase` occurs in `text` as whole words (both normalised). A plain substring test would find the
 * answer "2" inside "t000021" or "2026": on LongMemEval every hit of a one- or two-digit answer was
 * such an accident, not the fact.
 */
export function containsWords(text: string, phrase: string): boolean {
  return ` ${text} `.includes(` ${phrase} `);
}

/** The distinct words of a normalised text that carry content; all its words when none does. */
export function contentWords(normalized: string): string[] {
  const words = [...new Set(normalized.split(' ').filter(Boolean))];
  const content = words.filter((word) => !NORMALIZED_STOPWORDS.has(word));
  return content.length > 0 ? content : words;
}

const CITATION = /\[(t_[0-9A-Za-z]+)\]/g;

/**
 * Turn ids the text cites directly, as `[t_…]` (the extractive summary's line prefix, a topic's
 * pending lines). A topic header `[topic t_… · …]` does not match: a topic stands for all its
 * members, and counting its id would credit every member as kept.
 */
export function citedTurnIds(text: string): Set<string> {
  return new Set([...text.matchAll(CITATION)].map((match) => match[1] as string));
}

export interface ScoringContext {
  /** The normalised context text. */
  text: string;
  /** The context normalised as SQuAD normalises (normalizeAnswer), for answer containment. */
  answerText: string;
  words: ReadonlySet<string>;
  citedTurnIds: ReadonlySet<string>;
}

/** Everything scoring needs from one built context, computed once for all its questions. */
export function prepareContext(rawText: string): ScoringContext {
  const text = normalizeText(rawText);
  return {
    text,
    answerText: normalizeAnswer(text),
    words: new Set(text.split(' ').filter(Boolean)),
    citedTurnIds: citedTurnIds(rawText),
  };
}

export interface EvidenceInput {
  /** The evidence message's text, as the conversation file has it. */
  text: string;
  /** The turn the message became in this import. */
  turnId: string;
}

export interface PreparedQuestion {
  /** Normalised answer; null for an unanswerable question (or one whose answer is only punctuation). */
  answer: string | null;
  answerWords: string[];
  /** The answer as SQuAD normalises it; null when nothing is left (no answer, or only articles). */
  containedAnswer: string | null;
  /** The normalised answer is in the text of at least one evidence message: AP applies. */
  answerInEvidence: boolean;
  evidence: Array<{ text: string; turnId: string }>;
}

export function prepareQuestion(input: { answer: string | null; evidence: readonly EvidenceInput[] }): PreparedQuestion {
  const normalized = input.answer === null ? '' : normalizeText(input.answer);
  const answer = normalized === '' ? null : normalized;
  const evidence = input.evidence.map((item) => ({ text: normalizeText(item.text), turnId: item.turnId }));
  return {
    answer,
    answerWords: answer === null ? [] : contentWords(answer),
    containedAnswer: input.answer === null ? null : normalizeAnswer(input.answer) || null,
    answerInEvidence: answer !== null && evidence.some((item) => containsWords(item.text, answer)),
    evidence,
  };
}

/** Each metric is 0–1, or null when it does not apply to the question. */
export interface QuestionMetrics {
  ap: number | null;
  atr: number | null;
  erAll: number | null;
  erFrac: number | null;
  /**
   * Answer containment: the SQuAD-normalised answer is in the SQuAD-normalised context, as whole
   * words; every question with an answer (AP only counts those whose answer is verbatim in evidence).
   */
  containment: number | null;
}

export function scoreQuestion(question: PreparedQuestion, context: ScoringContext): QuestionMetrics {
  const { answer } = question;
  const ap = answer !== null && question.answerInEvidence ? Number(containsWords(context.text, answer)) : null;
  const atr =
    answer !== null ? question.answerWords.filter((word) => context.words.has(word)).length / question.answerWords.length : null;
  const containment =
    question.containedAnswer === null ? null : Number(containsWords(context.answerText, question.containedAnswer));
  if (question.evidence.length === 0) return { ap, atr, erAll: null, erFrac: null, containment };
  const survived = question.evidence.filter((item) => evidenceSurvived(item, context)).length;
  return {
    ap,
    atr,
    erAll: Number(survived === question.evidence.length),
    erFrac: survived / question.evidence.length,
    containment,
  };
}

/** Its text is in the context, or the context cites its turn. An empty text counts only by citation. */
export function evidenceSurvived(evidence: { text: string; turnId: string }, context: ScoringContext): boolean {
  return (evidence.text !== '' && containsWords(context.text, evidence.text)) || context.citedTurnIds.has(evidence.turnId);
}

/**
 * The turn a question asked at `askedAt` is asked at: the last turn of the history, in history
 * order, whose timestamp is at or before it; null when every turn is later. In history order
 * rather than by time: a runtime has seen every turn before the one it is at, whatever their dates
 * say (LongMemEval's haystacks are not in date order).
 */
export function turnAtTime(turns: ReadonlyArray<{ id: string; timestamp: number }>, askedAt: number): string | null {
  for (let index = turns.length - 1; index >= 0; index -= 1) {
    const turn = turns[index];
    if (turn && turn.timestamp <= askedAt) return turn.id;
  }
  return null;
}
