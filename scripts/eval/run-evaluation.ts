// The whole evaluation as one function (the command line and the tests call it): checks every
// data file first, by the importer's own rules, and refuses to start while any is bad (naming them
// all); runs each conversation (run-conversation.ts) in a scratch folder; hands each finished
// conversation's scores and the report so far to `onConversation` (eval.ts writes them, so a late
// failure keeps the rest); and returns the report: config, rows and cost, then the full-context
// reference and the rankings' session and turn recall (reference-run.ts, once per conversation). A
// conversation that fails while running is reported under config.failures and the others still
// count. Printing is left to report.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_MIN_RELEVANCE,
  DEFAULT_RECALL_TUNING,
  DEFAULT_RETRIEVAL_SHARE,
  type RecallTuning,
} from '../../packages/agents-ledger/src/index.ts';
import type { Embedder } from '../../packages/core/src/index.ts';
import { DEFAULT_FOREST_CONFIG, type ForestConfig } from '../../packages/forest/src/index.ts';
import { postgresStorage } from '../bench/bench-storage.ts';
import { aggregateRows, type CostRow, type ImportCost, type ResultRow, type ScoredQuestion, sumCosts } from './aggregate.ts';
import { aggregateRanking, aggregateReference, type RankingRow, type ReferenceRow } from './aggregate-peers.ts';
import type { Mode, StrategyName, SummarizerName } from './arguments.ts';
import { collectDataFiles, DataError, type LoadedConversation, loadConversationFile } from './load-data.ts';
import { createMeasuredEmbedder, type EmbeddingUsage, type MeasuredEmbedder } from './measured-embedder.ts';
import { rankersFor } from './rankers.ts';
import { type RankedQuestion, type ReferenceScore, runReference } from './reference-run.ts';
import { conversationTokens, messageTexts, runConversation, sqlitePlaces, type WindowRaise } from './run-conversation.ts';
import { prepareQuestion } from './score.ts';
import { openVectorCache, vectorCachePath } from './vector-cache.ts';

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
  /** hybrid's recall settings beside the ledger's defaults. */
  recall?: RecallTuning;
  /** union-find's forest settings beside the ledger's defaults (union-find and hybrid imports). */
  forest?: Partial<ForestConfig>;
  /** A postgres:// server URL: every ledger in a fresh database made next to the one it names (dropped once scored). */
  dbServer?: string | null;
  /** An embedder for hybrid and the reference's vectors and fused rankings; absent: bm25 only. */
  embedding?: EvaluationEmbedding;
  onProgress?: (progress: EvaluationProgress) => void;
  /** Runs one conversation (default run-conversation.ts); tests put a failing one in its place. */
  runConversation?: typeof runConversation;
  /** Called as each conversation finishes (or fails), with its scores and the report so far. */
  onConversation?: (done: ConversationDone) => void;
}

export interface EvaluationEmbedding {
  /** What the report calls it (--embedder's name). */
  name: string;
  embedder: Embedder;
  /** A folder keeping vectors between runs (vector-cache.ts), or none. */
  cacheFolder?: string | null;
}

export interface ConversationDone {
  file: string;
  /** This conversation's scores (none when it failed). */
  scores: ScoredQuestion[];
  /** Its questions scored on the full context, and where each ranker put their evidence. */
  reference: ReferenceScore[];
  rankings: RankedQuestion[];
  /** The report over every conversation finished so far. */
  report: EvaluationReport;
}

/** A conversation that failed while running: the run goes on without it. */
export interface ConversationFailure {
  file: string;
  error: string;
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
  /** Set when the conversation failed (config.failures says why). */
  failed?: boolean;
}

export interface EvaluationConfig {
  /** `tokens`: the conversation's length (its messages' tokens), which a budget is a share of. */
  data: Array<{ file: string; conversation: string; messages: number; questions: number; tokens: number }>;
  strategies: StrategyName[];
  budgets: number[];
  modes: Mode[];
  summarizer: SummarizerName;
  /** hybrid's share of B for retrieved turns. */
  retrievalShare: number;
  /** hybrid's relevance cut-off, a fraction of the best match's bm25 score. */
  minRelevance: number;
  /** hybrid's recall settings: the ledger's defaults with --recall's on top. */
  recall: RecallTuning;
  /** union-find's forest settings: the ledger's defaults with --forest's on top. */
  forest: ForestConfig;
  settings: { contextWindow: string; reserveTokens: string; keepRecentTokens: string; recent: string };
  windowRaises: WindowRaise[];
  /** Files whose message ids repeat: the later copies were imported as `<id>#2`, … */
  repeatedMessageIds: Array<{ file: string; ids: string[] }>;
  tokenCounter: string;
  /** Questions in all, and how many each metric can score. */
  questions: { total: number; er: number; ap: number; atr: number; containment: number };
  /** What each number of a row means. */
  metrics: Record<'n' | 'ap' | 'atr' | 'er_all' | 'er_frac' | 'containment' | 'tokens' | 'budget_share', string>;
  /** What each ranker of the `ranking` rows ranks by, and how their fields read. */
  ranking: Record<'retrieval' | 'recall' | 'vectors' | 'fused' | 'sessions' | 'fields', string>;
  /** The embedder hybrid and the vector rankings ran with; null: none, bm25 only. */
  embedder: { name: string; model: string; cache: string | null } | null;
  /** Conversations that failed while running, left out of the rows. */
  failures: ConversationFailure[];
  /** Messages skipped as empty (the importer's rule), by file; evidence naming one is left out. */
  emptyMessages: Array<{ file: string; ids: string[] }>;
}

export interface EvaluationReport {
  config: EvaluationConfig;
  rows: ResultRow[];
  cost: CostRow[];
  /** Every question on the whole history up to it, no budget: the ceiling of the rows (per category). */
  reference: ReferenceRow[];
  /** Session and turn recall@k of each ranking (per ranker and category). */
  ranking: RankingRow[];
  /** What embedding cost, summed over the run; null without an embedder. */
  embedding: EmbeddingUsage | null;
}

export interface EvaluationResult {
  report: EvaluationReport;
  /** Every question's scores, for tests and ad-hoc analysis (not in the JSON report). */
  scores: ScoredQuestion[];
}

export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationResult> {
  const loaded = loadAll(collectDataFiles(options.data));
  const directory = mkdtempSync(join(tmpdir(), 'nexus-eval-'));
  const server = options.dbServer ? postgresStorage(options.dbServer) : null;
  const scores: ScoredQuestion[] = [];
  const reference: ReferenceScore[] = [];
  const rankings: RankedQuestion[] = [];
  const costs: ImportCost[] = [];
  const windowRaises: WindowRaise[] = [];
  const failures: ConversationFailure[] = [];
  const finished: LoadedConversation[] = [];
  const embedder = measuredEmbedder(options.embedding);
  const reportSoFar = (): EvaluationReport => ({
    config: describeConfig(options, finished, { windowRaises, failures, embedder }),
    rows: aggregateRows(scores, options),
    cost: sumCosts(costs, options.strategies),
    reference: aggregateReference(reference),
    ranking: aggregateRanking(rankings, rankersFor(embedder !== undefined)),
    embedding: embedder?.usage() ?? null,
  });
  try {
    for (const [position, item] of loaded.entries()) {
      const progress = { index: position + 1, count: loaded.length, file: item.file };
      const started = performance.now();
      let run: Awaited<ReturnType<typeof runConversation>>;
      let peers: Awaited<ReturnType<typeof runReference>>;
      try {
        run = await (options.runConversation ?? runConversation)(item, {
          strategies: options.strategies,
          budgets: options.budgets,
          modes: options.modes,
          summarizer: options.summarizer,
          retrievalShare: options.retrievalShare ?? DEFAULT_RETRIEVAL_SHARE,
          minRelevance: options.minRelevance ?? DEFAULT_MIN_RELEVANCE,
          recall: options.recall ?? {},
          forest: options.forest ?? {},
          directory,
          ...(server ? { places: server } : {}),
          ...(embedder ? { embedder } : {}),
          onStep: (step) => options.onProgress?.({ ...progress, step }),
        });
        options.onProgress?.({ ...progress, step: 'reference and rankings' });
        peers = await runReference(item, { places: server ?? sqlitePlaces(directory), ...(embedder ? { embedder } : {}) });
      } catch (error) {
        // One conversation's failure costs that conversation, not the run.
        failures.push({ file: item.file, error: error instanceof Error ? error.message : String(error) });
        options.onProgress?.({ ...progress, step: null, seconds: (performance.now() - started) / 1000, failed: true });
        options.onConversation?.({ file: item.file, scores: [], reference: [], rankings: [], report: reportSoFar() });
        continue;
      }
      scores.push(...run.scores);
      reference.push(...peers.reference);
      rankings.push(...peers.rankings);
      costs.push(...run.costs);
      windowRaises.push(...run.windowRaises);
      finished.push(item);
      options.onProgress?.({ ...progress, step: null, seconds: (performance.now() - started) / 1000 });
      options.onConversation?.({ file: item.file, scores: run.scores, ...peers, report: reportSoFar() });
    }
  } finally {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  }
  return { report: reportSoFar(), scores };
}

/** The run's one embedder: every text embedded once, counted, and kept on disk when a folder is named. */
function measuredEmbedder(embedding: EvaluationEmbedding | undefined): MeasuredEmbedder | undefined {
  if (!embedding) return undefined;
  const { embedder, cacheFolder } = embedding;
  return createMeasuredEmbedder({ embedder, ...(cacheFolder ? { cache: openVectorCache(cacheFolder, embedder.model) } : {}) });
}

/** Every file loaded and checked before anything runs; all the bad ones named at once. */
function loadAll(files: readonly string[]): LoadedConversation[] {
  const loaded: LoadedConversation[] = [];
  const problems: string[] = [];
  for (const file of files) {
    try {
      loaded.push(loadConversationFile(file));
    } catch (error) {
      if (!(error instanceof DataError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length === 1) throw new DataError(problems[0] as string);
  if (problems.length > 1) {
    throw new DataError(`${problems.length} of ${files.length} data files cannot be imported:\n  ${problems.join('\n  ')}`);
  }
  return loaded;
}

const RANKING_DESCRIPTION: EvaluationConfig['ranking'] = {
  retrieval:
    "the turns `retrieval` sends, in its order: ledger.retrieve, bm25 on the question's words (every word first), a reply ranked with the turn it answers",
  recall:
    "the ranking the hybrid's recall starts from: ledger.search over raw turns, bm25 on the question's content words, any word (without the neighbours recall adds)",
  vectors:
    "with an embedder: cosine similarity of the question's vector to each turn's (ledger.searchByMeaning over the session's line)",
  fused:
    "with an embedder: recall and vectors fused by reciprocal rank fusion (k = 60), as the hybrid's recall fuses bm25 with vectors before adding neighbours",
  sessions:
    'a message id <session>:<turn> names its session (LoCoMo D3:12, LongMemEval <id>:4); sessions rank by their best turn',
  fields:
    'session_any_k: recall_any@k (ANY evidence session among the first k); session_all_k: recall_all@k; session_tokens_k: mean tokens of the first k sessions whole; turn_*: the same over turns',
};

interface RunFindings {
  windowRaises: WindowRaise[];
  failures: ConversationFailure[];
  embedder: MeasuredEmbedder | undefined;
}

function describeConfig(
  options: EvaluationOptions,
  loaded: readonly LoadedConversation[],
  { windowRaises, failures, embedder }: RunFindings,
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
      tokens: conversationTokens(conversation),
    })),
    strategies: [...options.strategies],
    budgets: [...options.budgets],
    modes: [...options.modes],
    summarizer: options.summarizer,
    retrievalShare: options.retrievalShare ?? DEFAULT_RETRIEVAL_SHARE,
    minRelevance: options.minRelevance ?? DEFAULT_MIN_RELEVANCE,
    recall: { ...DEFAULT_RECALL_TUNING, ...options.recall },
    forest: { ...DEFAULT_FOREST_CONFIG, ...options.forest },
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
      containment: questions.filter((question) => question.prepared.containedAnswer !== null).length,
    },
    metrics: {
      n: 'questions scored for ER: those with evidence',
      ap: 'mean of answer-in-context (normalised substring) over questions whose answer is in one of their evidence messages',
      atr: "mean share of the answer's content words found in the context, over questions with an answer",
      er_all: 'share of questions whose every evidence message survived (text in the context, or its turn cited as [t_…])',
      er_frac: 'mean share of evidence messages that survived',
      containment:
        'answer containment: the answer normalised as SQuAD does (lower-case, punctuation and a/an/the removed) is in the context so normalised, as whole words; questions with an answer',
      tokens: 'mean tokens of the context sent (the ledger estimate)',
      budget_share: "mean of B / the conversation's tokens (config.data[].tokens)",
    },
    ranking: RANKING_DESCRIPTION,
    embedder:
      options.embedding && embedder
        ? {
            name: options.embedding.name,
            model: embedder.model,
            cache: options.embedding.cacheFolder ? vectorCachePath(options.embedding.cacheFolder, embedder.model) : null,
          }
        : null,
    failures: [...failures],
    emptyMessages: loaded
      .filter((item) => item.emptyMessageIds.length > 0)
      .map(({ file, emptyMessageIds }) => ({ file, ids: emptyMessageIds })),
  };
}
