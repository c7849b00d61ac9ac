// `ledger.recall`: the whole ranking the hybrid context's recall packs from, before any budget: the
// searches (content words, then any word), speakers and dates read as such, feedback, the fusion
// with stored vectors when the ledger has an Embedder, and the turns beside each match valued at a
// share of it. What an application shows as "what the ledger remembers about this", and what the
// evaluation scores by recall@k, so the figures are recall's and not a re-creation of its first step.

import { InvalidInputError, type NormalTurn } from '@agent-ledger/core';
import { semanticQuery } from '../context/semantic-query.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { readSessionLine } from '../line/session-line.ts';
import { type RecallTuning, rankRecall } from './recall-turns.ts';

export interface RecallRankingOptions extends RecallTuning {
  /** The message to answer. */
  query: string;
  /** Whose line to rank (default: the session that wrote the turn). */
  sessionId?: string;
  /** At most this many turns, best first (default 20, at most 500). */
  limit?: number;
  /** False: bm25 alone even when the ledger has an Embedder (default true: as the context ranks). */
  byMeaning?: boolean;
}

export interface RecalledCandidate {
  turn: NormalTurn;
  /** Recall's value for the turn: a match's score, or a share of its match's for a neighbour. */
  value: number;
}

export interface RecallRanking {
  /** Best first; ties go to the later turn. */
  turns: RecalledCandidate[];
  /** The Embedder's model when vectors took part in the ranking; null for bm25 alone. */
  rankedByMeaningWith: string | null;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

export async function recallRanking(
  ledger: LedgerContext,
  atTurnId: string,
  options: RecallRankingOptions,
): Promise<RecallRanking> {
  const { query, sessionId, limit = DEFAULT_LIMIT, byMeaning = true, ...tuning } = options ?? ({} as RecallRankingOptions);
  if (typeof query !== 'string' || query.trim() === '')
    throw new InvalidInputError('recall needs the query to rank for.', 'query');
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new InvalidInputError(`limit must be a whole number from 1 to ${MAX_LIMIT}; got ${String(limit)}.`, 'limit');
  const line = await readSessionLine(ledger.store, atTurnId, { sessionId, newestLimit: 0 });
  const semantic = byMeaning ? await semanticQuery(ledger, ledger.embedder, atTurnId, query) : undefined;
  const vectors = semantic?.queryVector ? { model: semantic.model, queryVector: semantic.queryVector } : undefined;
  const ranked = await rankRecall(ledger, line, { ...tuning, query, semantic: vectors });
  return {
    turns: ranked.slice(0, limit).map(({ turn, value }) => ({ turn, value })),
    rankedByMeaningWith: vectors?.model ?? null,
  };
}
