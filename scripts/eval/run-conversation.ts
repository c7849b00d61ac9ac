// Runs one conversation through the evaluation: imports it into fresh ledgers (once for `recent`,
// once per budget for each compaction strategy), builds the context each question is asked in,
// and scores it with score.ts. The ledger work and the timing live here; what counts as found
// is decided in score.ts.

import { join } from 'node:path';
import {
  type AgentsLedger,
  type BuiltContext,
  type Conversation,
  type ConversationQuestion,
  createAgentsLedger,
  type ImportResult,
  importConversation,
  type RecallTuning,
} from '../../packages/agents-ledger/src/index.ts';
import {
  contentText,
  countContentTokens,
  type Embedder,
  estimateTokenCounter,
  type InvalidInputError,
  LedgerError,
  type SessionSettings,
  sequentialIds,
  toContentBlocks,
} from '../../packages/core/src/index.ts';
import type { ForestConfig } from '../../packages/forest/src/index.ts';
import { openLedgerStore } from '../../packages/store/src/index.ts';
import { createAnthropicSummarizer, createExtractiveSummarizer } from '../../packages/summarizers/src/index.ts';
import { nowMilliseconds } from '../bench/measure.ts';
import { removeDatabaseFiles } from '../bench/temporary-files.ts';
import { type CountingSummarizer, countingSummarizer } from '../counting-summarizer.ts';
import { type ImportCost, NO_CATEGORY, type ScoredQuestion } from './aggregate.ts';
import type { Mode, StrategyName, SummarizerName } from './arguments.ts';
import type { LoadedConversation } from './load-data.ts';
import {
  type PreparedQuestion,
  prepareContext,
  prepareQuestion,
  type ScoringContext,
  scoreQuestion,
  turnAtTime,
} from './score.ts';

/** The clock of every ledger the evaluation writes (session creation times; turns keep the file's times). */
export const FIXED_NOW = Date.parse('2026-01-01T00:00:00Z');
/** `recent`, `retrieval` and the reference import without ever compacting. */
export const NO_COMPACTION: SessionSettings = { contextWindow: 1_000_000_000, reserveTokens: 0, keepRecentTokens: 0 };

export interface WindowRaise {
  file: string;
  conversation: string;
  budget: number;
  largestMessageTokens: number;
  contextWindow: number;
}

export interface ConversationRun {
  scores: ScoredQuestion[];
  costs: ImportCost[];
  windowRaises: WindowRaise[];
}

/** Fresh, empty ledger locations, and their removal once scored. */
export interface LedgerPlaces {
  create(label: string): Promise<string>;
  remove(location: string): Promise<void>;
}

export function sqlitePlaces(directory: string): LedgerPlaces {
  return {
    create: async (label) => join(directory, `${label}.sqlite`),
    remove: async (path) => removeDatabaseFiles(path),
  };
}

export interface RunConversationOptions {
  strategies: readonly StrategyName[];
  budgets: readonly number[];
  modes: readonly Mode[];
  summarizer: SummarizerName;
  /** hybrid's share of B for retrieved turns. */
  retrievalShare: number;
  /** hybrid's relevance cut-off. */
  minRelevance: number;
  /** hybrid's recall settings beside the ledger's defaults. */
  recall?: RecallTuning;
  /** union-find's forest settings beside the ledger's defaults. */
  forest?: Partial<ForestConfig>;
  /** Scratch folder for the SQLite files; each is removed once scored. */
  directory: string;
  /** Where the ledgers go instead of SQLite files in `directory` (PostgreSQL: a fresh database each). */
  places?: LedgerPlaces;
  /** Given to the hybrid's ledgers (the only strategy whose context uses vectors): recall fuses bm25 with them. */
  embedder?: Embedder;
  /** Called before each import, with what is about to run ("union-find @ 2000"). */
  onStep?: (step: string) => void;
}

/**
 * The settings of a runtime whose window is `budget`: reserve a tenth, keep a quarter raw. A window
 * smaller than the conversation's largest message grows to it, since the ledger refuses a message
 * larger than the window (MESSAGE_TOO_LARGE).
 */
export function windowSettings(budget: number, largestMessageTokens: number): SessionSettings {
  const contextWindow = Math.max(budget, largestMessageTokens);
  const reserveTokens = Math.round(contextWindow / 10);
  // The ledger requires keepRecentTokens < contextWindow - reserveTokens; a quarter always is, but
  // rounding on a tiny window could tie.
  const keepRecentTokens = Math.min(Math.round(contextWindow / 4), Math.max(0, contextWindow - reserveTokens - 1));
  return { contextWindow, reserveTokens, keepRecentTokens };
}

/** Tokens the ledger will count for the conversation's largest message. */
export function largestMessageTokens(conversation: Conversation): number {
  return Math.max(0, ...messageTokensOf(conversation).values());
}

/** Tokens the ledger counts for each message, by message id. */
export function messageTokensOf(conversation: Conversation): Map<string, number> {
  return new Map(
    conversation.messages.map((message) => [
      message.id,
      countContentTokens(estimateTokenCounter, toContentBlocks(message.content)),
    ]),
  );
}

/** The conversation's length in tokens: its messages' tokens summed (what a budget is a share of). */
export function conversationTokens(conversation: Conversation): number {
  let total = 0;
  for (const tokens of messageTokensOf(conversation).values()) total += tokens;
  return total;
}

export async function runConversation(loaded: LoadedConversation, options: RunConversationOptions): Promise<ConversationRun> {
  const { conversation, file } = loaded;
  const run: ConversationRun = { scores: [], costs: [], windowRaises: [] };
  const largest = largestMessageTokens(conversation);
  const places = options.places ?? sqlitePlaces(options.directory);
  for (const strategy of options.strategies) {
    if (strategy === 'recent' || strategy === 'retrieval') {
      options.onStep?.(strategy);
      const measured = await measureImport(loaded, options, {
        strategy,
        settings: NO_COMPACTION,
        budgets: options.budgets,
        full: true,
        path: await places.create(strategy),
      });
      run.scores.push(...measured.scores);
      run.costs.push(measured.cost);
      continue;
    }
    for (const budget of options.budgets) {
      options.onStep?.(`${strategy} @ ${budget}`);
      const settings = windowSettings(budget, largest);
      const measured = await measureImport(loaded, options, {
        strategy,
        settings,
        budgets: [budget],
        full: false,
        path: await places.create(`${strategy}-${budget}`),
      });
      run.scores.push(...measured.scores);
      run.costs.push(measured.cost);
    }
  }
  if (options.strategies.some((strategy) => strategy === 'flat' || strategy === 'union-find' || strategy === 'hybrid')) {
    for (const budget of options.budgets) {
      const { contextWindow } = windowSettings(budget, largest);
      if (contextWindow > budget) {
        run.windowRaises.push({ file, conversation: conversation.id, budget, largestMessageTokens: largest, contextWindow });
      }
    }
  }
  return run;
}

interface ImportPlan {
  strategy: StrategyName;
  settings: SessionSettings;
  /** Budgets to build contexts at from this one import. */
  budgets: readonly number[];
  /** Ignore compactions when building (recent). */
  full: boolean;
  path: string;
}

async function measureImport(
  loaded: LoadedConversation,
  options: RunConversationOptions,
  plan: ImportPlan,
): Promise<{ scores: ScoredQuestion[]; cost: ImportCost }> {
  const summarizer = summarizerNamed(options.summarizer);
  const ledger = createAgentsLedger({
    store: openLedgerStore(plan.path),
    summarizer,
    tokenCounter: estimateTokenCounter,
    generateId: sequentialIds(),
    now: () => FIXED_NOW,
    forest: options.forest ?? {},
    ...(options.embedder && plan.strategy === 'hybrid' ? { embedder: options.embedder } : {}),
  });
  try {
    const started = nowMilliseconds();
    const result = await importConversation(ledger, loaded.conversation, {
      ...(plan.strategy === 'flat' || plan.strategy === 'union-find'
        ? { strategy: plan.strategy }
        : plan.strategy === 'hybrid'
          ? { strategy: 'union-find' }
          : {}),
      settings: plan.settings,
    });
    const scores = await scoreImport(ledger, result, loaded.conversation, {
      ...plan,
      modes: options.modes,
      retrievalShare: options.retrievalShare,
      minRelevance: options.minRelevance,
      recall: options.recall ?? {},
    });
    return {
      scores,
      cost: {
        strategy: plan.strategy,
        calls: summarizer.calls,
        inputTokens: summarizer.inputTokens,
        outputTokens: summarizer.outputTokens,
        compactions: result.compactions,
        milliseconds: nowMilliseconds() - started,
      },
    };
  } finally {
    await ledger.close();
    await (options.places ?? sqlitePlaces(options.directory)).remove(plan.path);
  }
}

type ScoringPlan = ImportPlan & { modes: readonly Mode[]; retrievalShare: number; minRelevance: number; recall: RecallTuning };

async function scoreImport(
  ledger: AgentsLedger,
  result: ImportResult,
  conversation: Conversation,
  plan: ScoringPlan,
): Promise<ScoredQuestion[]> {
  if (conversation.questions.length === 0) return [];
  const history: Array<{ id: string; timestamp: number }> = [];
  if (result.headTurnId) {
    for await (const turn of ledger.getFullHistory(result.headTurnId)) history.push({ id: turn.id, timestamp: turn.timestamp });
  }
  const messageText = messageTexts(conversation);
  const length = Math.max(1, conversationTokens(conversation));
  const contextAt = contextSource(ledger, plan);
  const scores: ScoredQuestion[] = [];
  for (const question of conversation.questions) {
    const turnId = question.askedAt ? turnAtTime(history, Date.parse(question.askedAt)) : result.headTurnId;
    const prepared = prepareFor(question, messageText, result.turnIds);
    for (const budget of plan.budgets) {
      for (const mode of plan.modes) {
        const context = await contextAt(turnId, budget, mode === 'aware' ? question.question : undefined);
        scores.push({
          conversationId: conversation.id,
          questionId: question.id,
          category: question.category ?? NO_CATEGORY,
          strategy: plan.strategy,
          budget,
          mode,
          turnId,
          ...scoreQuestion(prepared, context),
          tokens: context.tokens,
          budgetShare: budget / length,
        });
      }
    }
  }
  return scores;
}

/** A built context ready to score, with the tokens it takes as sent. */
type SentContext = ScoringContext & { tokens: number };

/**
 * The context a question is asked in, for this import's strategy. Questions asked at one turn
 * share the contexts built without a query, so each is built once.
 */
function contextSource(
  ledger: AgentsLedger,
  plan: ScoringPlan,
): (turnId: string | null, budget: number, query: string | undefined) => Promise<SentContext> {
  const contexts = new Map<string, SentContext>();
  const build = async (turnId: string, budget: number, query: string | undefined): Promise<{ text: string; tokens: number }> => {
    if (plan.strategy === 'retrieval' && query !== undefined) {
      // The RAG baseline: bm25 over raw turns only, within the same budget.
      return ledger.retrieve(turnId, { query, budgetTokens: budget });
    }
    const retrieval =
      plan.strategy === 'hybrid'
        ? { share: plan.retrievalShare, minRelevance: plan.minRelevance, recall: plan.recall }
        : undefined;
    return contextTextOrNothing(() => ledger.buildContext(turnId, { budgetTokens: budget, full: plan.full, query, retrieval }));
  };
  return async (turnId, budget, query) => {
    const key = JSON.stringify([turnId, budget, query ?? null]);
    let context = contexts.get(key);
    if (!context) {
      const sent = turnId === null ? { text: '', tokens: 0 } : await build(turnId, budget, query);
      context = { ...prepareContext(sent.text), tokens: sent.tokens };
      contexts.set(key, context);
    }
    return context;
  };
}

/** Evidence ids are message ids whatever the evidenceLevel; each becomes the turn this import gave it. */
export function prepareFor(
  question: ConversationQuestion,
  messageText: ReadonlyMap<string, string>,
  turnIds: Readonly<Record<string, string>>,
): PreparedQuestion {
  return prepareQuestion({
    answer: question.answer,
    evidence: question.evidence.map((messageId) => ({
      text: messageText.get(messageId) ?? '',
      turnId: turnIds[messageId] ?? '',
    })),
  });
}

/** Each message's text as the ledger reads it (contentText of its blocks), by message id. */
export function messageTexts(conversation: Conversation): Map<string, string> {
  return new Map(conversation.messages.map((message) => [message.id, contentText(toContentBlocks(message.content))]));
}

/** What the model would read: the system text, then every message's text. */
export function contextText(context: Pick<BuiltContext, 'system' | 'messages'>): string {
  return [context.system, ...context.messages.map((message) => contentText(message.content))].join('\n');
}

/** The chosen summarizer, counting its calls and the tokens its usage reports. */
function summarizerNamed(name: SummarizerName): CountingSummarizer {
  if (name === 'anthropic') {
    // `defer` rather than a silent extractive fallback: a run that says "anthropic" measures anthropic.
    return countingSummarizer(createAnthropicSummarizer({ tokenCounter: estimateTokenCounter, onFailure: 'defer' }));
  }
  return countingSummarizer(createExtractiveSummarizer({ tokenCounter: estimateTokenCounter }));
}

/**
 * The context's text and tokens, or none when the budget holds not even the newest user turn alone
 * (buildContext refuses such a budget: a request needs a user message): that context keeps no evidence.
 */
async function contextTextOrNothing(
  build: () => ReturnType<AgentsLedger['buildContext']>,
): Promise<{ text: string; tokens: number }> {
  try {
    const built = await build();
    return { text: contextText(built), tokens: built.tokens };
  } catch (error) {
    if (LedgerError.isInstance(error) && error.code === 'INVALID_INPUT' && (error as InvalidInputError).field === 'budgetTokens')
      return { text: '', tokens: 0 };
    throw error;
  }
}
