// The measures that do not depend on a strategy or a budget, once per conversation: the
// full-context reference (every turn up to the question, no budget: the ceiling the budgeted rows
// are read against) and where each ranking puts the evidence (rankers.ts, rank-evidence.ts). One
// import without compaction serves both; scoring is score.ts, as for the strategies.

import {
  type AgentsLedger,
  createAgentsLedger,
  type ImportResult,
  importConversation,
} from '../../packages/agents-ledger/src/index.ts';
import { type Embedder, estimateTokenCounter, sequentialIds } from '../../packages/core/src/index.ts';
import { openLedgerStore } from '../../packages/store/src/index.ts';
import { NO_CATEGORY } from './aggregate.ts';
import type { LoadedConversation } from './load-data.ts';
import { type RankOutcome, rankEvidence, sessionsOf } from './rank-evidence.ts';
import { type RankerName, rankersFor, rankTurns } from './rankers.ts';
import {
  contextText,
  FIXED_NOW,
  type LedgerPlaces,
  messageTexts,
  messageTokensOf,
  NO_COMPACTION,
  prepareFor,
} from './run-conversation.ts';
import { prepareContext, type QuestionMetrics, scoreQuestion, turnAtTime } from './score.ts';

interface QuestionPlace {
  conversationId: string;
  questionId: string;
  category: string;
  /** The turn the question is asked at; null when it came before every turn. */
  turnId: string | null;
}

/** One question scored on the whole history up to it (`kind` tells these lines apart in --scores). */
export interface ReferenceScore extends QuestionPlace, QuestionMetrics {
  kind: 'reference';
  /** Tokens of that context (the ledger's estimate). */
  tokens: number;
}

/** Where one ranker put one question's evidence. */
export interface RankedQuestion extends QuestionPlace, RankOutcome {
  kind: 'ranking';
  ranker: RankerName;
}

export interface ReferenceRun {
  reference: ReferenceScore[];
  rankings: RankedQuestion[];
}

export interface ReferenceOptions {
  places: LedgerPlaces;
  /** Adds the vectors and fused rankings; its turns are embedded once, before the questions. */
  embedder?: Embedder;
}

export async function runReference(loaded: LoadedConversation, { places, embedder }: ReferenceOptions): Promise<ReferenceRun> {
  const { conversation } = loaded;
  if (conversation.questions.length === 0) return { reference: [], rankings: [] };
  const path = await places.create('reference');
  const ledger = createAgentsLedger({
    store: openLedgerStore(path),
    tokenCounter: estimateTokenCounter,
    generateId: sequentialIds(),
    now: () => FIXED_NOW,
    ...(embedder ? { embedder } : {}),
  });
  try {
    const imported = await importConversation(ledger, conversation, { settings: NO_COMPACTION });
    // searchByMeaning reads stored vectors only: every turn gets one first, so none is missed.
    if (embedder) await ledger.embedMissing({ sessionId: imported.sessionId });
    return await scoreReference(ledger, loaded, imported, rankersFor(embedder !== undefined));
  } finally {
    await ledger.close();
    await places.remove(path);
  }
}

async function scoreReference(
  ledger: AgentsLedger,
  loaded: LoadedConversation,
  imported: ImportResult,
  rankers: readonly RankerName[],
): Promise<ReferenceRun> {
  const { conversation } = loaded;
  const history: Array<{ id: string; timestamp: number }> = [];
  if (imported.headTurnId) {
    for await (const turn of ledger.getFullHistory(imported.headTurnId)) history.push({ id: turn.id, timestamp: turn.timestamp });
  }
  const positions = new Map(history.map((turn, index) => [turn.id, index]));
  const messageOfTurn = new Map(Object.entries(imported.turnIds).map(([messageId, turnId]) => [turnId, messageId]));
  const texts = messageTexts(conversation);
  const rankInput = {
    sessions: sessionsOf(conversation.messages.map((message) => message.id)),
    messageTokens: messageTokensOf(conversation),
  };
  const contexts = new Map<string | null, { scoring: ReturnType<typeof prepareContext>; tokens: number }>();
  const run: ReferenceRun = { reference: [], rankings: [] };
  for (const question of conversation.questions) {
    const turnId = question.askedAt ? turnAtTime(history, Date.parse(question.askedAt)) : imported.headTurnId;
    const place = {
      conversationId: conversation.id,
      questionId: question.id,
      category: question.category ?? NO_CATEGORY,
      turnId,
    };
    let context = contexts.get(turnId);
    if (!context) {
      const built = turnId === null ? null : await ledger.buildContext(turnId, { full: true });
      context = { scoring: prepareContext(built ? contextText(built) : ''), tokens: built?.tokens ?? 0 };
      contexts.set(turnId, context);
    }
    const prepared = prepareFor(question, texts, imported.turnIds);
    run.reference.push({ kind: 'reference', ...place, ...scoreQuestion(prepared, context.scoring), tokens: context.tokens });
    for (const ranker of rankers) {
      const turns =
        turnId === null
          ? []
          : await rankTurns(ledger, {
              ranker,
              question: question.question,
              atTurnId: turnId,
              sessionId: imported.sessionId,
              positions,
            });
      const ranked = turns.map((id) => messageOfTurn.get(id)).filter((id): id is string => id !== undefined);
      run.rankings.push({
        kind: 'ranking',
        ranker,
        ...place,
        ...rankEvidence({ ranked, evidence: question.evidence, ...rankInput }),
      });
    }
  }
  return run;
}
