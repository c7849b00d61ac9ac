// The whole evaluation as one function (the command line and the tests call it): checks every
// data file first, runs each conversation (run-conversation.ts) in a scratch folder, and returns
// the report: config, rows and cost. Printing is left to report.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MIN_RELEVANCE, DEFAULT_RETRIEVAL_SHARE } from '../../packages/agents-ledger/src/index.ts';
import { aggregateRows, type CostRow, type ImportCost, type ResultRow, type ScoredQuestion, sumCosts } from './aggregate.ts';
import type { Mode, StrategyName, SummarizerName } from './arguments.ts';
import { collectDataFiles, type LoadedConversation, loadConversationFile } from './load-data.ts';
import { messageTexts, runConversation, type WindowRaise } from './run-conversation.ts';
import { prepareQuestion } from './score.ts';

export interface EvaluationOptions {
  /** Files and folders of nexus-eval/v1 conversations. */
  data: readonly string[];
  strategies: readonly StrategyName[];
  budgets: readonly number[];
  modes: readonly Mode[];
  summarizer: SummarizerName;
  /** hybrid's share of B for retrieved turns; null or absent: the ledger's default. */
  retrievalShare?: number | null;
  minRelevance?: number | null;
  onProgress?: (progress: EvaluationProgress) => void;
}

export interface EvaluationProgress {
  /** 1-based position of the conversation, of `count`. */
  index: number;
  count: number;
  file: string;
  /** What is about to run ("flat @ 1000"), or null once the conversation is done. */
  step: string | null;
  /** Seconds the conversation took, once done. */
  seconds?: number;
}

export interface EvaluationConfig {
  data: Array<{ file: string; conversation: string; messages: number; questions: number }>;
  strategies: StrategyName[];
  budgets: number[];
  modes: Mode[];
  summarizer: SummarizerName;
  /** hybrid's share of B for retrieved turns. */
  retrievalShare: number;
  /** hybrid's relevance cut-off, a fraction of the best match's bm25 score. */
  minRelevance: number;
  settings: { contextWindow: string; reserveTokens: string; keepRecentTokens: string; recent: string };
  windowRaises: WindowRaise[];
  /** Files whose message ids repeat: the later copies were imported as `<id>#2`, … */
  repeatedMessageIds: Array<{ file: string; ids: string[] }>;
  tokenCounter: string;
  /** Questions in all, and how many each metric can score. */
  questions: { total: number; er: number; ap: number; atr: number };
  /** What each number of a row means. */
  metrics: Record<'n' | 'ap' | 'atr' | 'er_all' | 'er_frac', string>;
}

export interface EvaluationReport {
  config: EvaluationConfig;
  rows: ResultRow[];
  cost: CostRow[];
}

export interface EvaluationResult {
  report: EvaluationReport;
  /** Every question's scores, for tests and ad-hoc analysis (not in the JSON report). */
  scores: ScoredQuestion[];
}

export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationResult> {
  const loaded = collectDataFiles(options.data).map(loadConversationFile);
  const directory = mkdtempSync(join(tmpdir(), 'nexus-eval-'));
  const scores: ScoredQuestion[] = [];
  const costs: ImportCost[] = [];
  const windowRaises: WindowRaise[] = [];
  try {
    for (const [position, item] of loaded.entries()) {
      const progress = { index: position + 1, count: loaded.length, file: item.file };
      const started = performance.now();
      let run: Awaited<ReturnType<typeof runConversation>>;
      try {
        run = await runConversation(item, {
          strategies: options.strategies,
          budgets: options.budgets,
          modes: options.modes,
          summarizer: options.summarizer,
          retrievalShare: options.retrievalShare ?? DEFAULT_RETRIEVAL_SHARE,
          minRelevance: options.minRelevance ?? DEFAULT_MIN_RELEVANCE,
          directory,
          onStep: (step) => options.onProgress?.({ ...progress, step }),
        });
      } catch (error) {
        throw new Error(`${item.file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      scores.push(...run.scores);
      costs.push(...run.costs);
      windowRaises.push(...run.windowRaises);
      options.onProgress?.({ ...progress, step: null, seconds: (performance.now() - started) / 1000 });
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const report: EvaluationReport = {
    config: describeConfig(options, loaded, windowRaises),
    rows: aggregateRows(scores, options),
    cost: sumCosts(costs, options.strategies),
  };
  return { report, scores };
}

function describeConfig(
  options: EvaluationOptions,
  loaded: readonly LoadedConversation[],
  windowRaises: WindowRaise[],
): EvaluationConfig {
  const questions = loaded.flatMap(({ conversation }) => {
    const texts = messageTexts(conversation);
    return conversation.questions.map((question) => ({
      hasEvidence: question.evidence.length > 0,
      prepared: prepareQuestion({
        answer: question.answer,
        evidence: question.evidence.map((id) => ({ text: texts.get(id) ?? '', turnId: '' })),
      }),
    }));
  });
  return {
    data: loaded.map(({ file, conversation }) => ({
      file,
      conversation: conversation.id,
      messages: conversation.messages.length,
      questions: conversation.questions.length,
    })),
    strategies: [...options.strategies],
    budgets: [...options.budgets],
    modes: [...options.modes],
    summarizer: options.summarizer,
    retrievalShare: options.retrievalShare ?? DEFAULT_RETRIEVAL_SHARE,
    minRelevance: options.minRelevance ?? DEFAULT_MIN_RELEVANCE,
    settings: {
      contextWindow: 'B, or the largest message when it is larger (see windowRaises); the context is built within B',
      reserveTokens: 'round(contextWindow / 10)',
      keepRecentTokens: 'round(contextWindow / 4)',
      recent: 'imported once without compaction; buildContext(turn, { budgetTokens: B, full: true })',
    },
    windowRaises,
    repeatedMessageIds: loaded
      .filter((item) => item.repeatedIds.length > 0)
      .map(({ file, repeatedIds }) => ({ file, ids: repeatedIds })),
    tokenCounter: 'estimate (see docs/tokens.md)',
    questions: {
      total: questions.length,
      er: questions.filter((question) => question.hasEvidence).length,
      ap: questions.filter((question) => question.prepared.answerInEvidence).length,
      atr: questions.filter((question) => question.prepared.answer !== null).length,
    },
    metrics: {
      n: 'questions scored for ER: those with evidence',
      ap: 'mean of answer-in-context (normalised substring) over questions whose answer is in one of their evidence messages',
      atr: "mean share of the answer's content words found in the context, over questions with an answer",
      er_all: 'share of questions whose every evidence message survived (text in the context, or its turn cited as [t_…])',
      er_frac: 'mean share of evidence messages that survived',
    },
  };
}
