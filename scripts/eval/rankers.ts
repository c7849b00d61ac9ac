// The two rankings of a conversation's turns for a question that the evaluation scores by
// recall@k (rank-evidence.ts), through the ledger's public API only:
// - retrieval: what the `retrieval` strategy sends, in its order (ledger.retrieve: bm25 on the
//   question's words, turns holding every word first; a reply ranked with the turn it answers).
// - recall: the ranking the hybrid's recall starts from (ledger.search, raw turns: bm25 on the
//   question's content words, any of them). Recall then adds the turns beside each match, valued
//   below it, and packs by value; its full ranking (rankRecall) is not public, so this is its first
//   stage. Neighbours sit in their match's session, so sessions rank alike bar a neighbour across a
//   session boundary.
// Both see only the turns up to the one the question is asked at.

import type { AgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import { STOPWORDS, WORD_PATTERN } from '../../packages/core/src/index.ts';

export const RANKERS = ['retrieval', 'recall'] as const;
export type RankerName = (typeof RANKERS)[number];

/** Ranked matches asked for: the most search and retrieve give (recall's default is 200 too). */
const CANDIDATES = 200;
/** Recall's query is at most this many words (query-terms.ts in agents-ledger). */
const MAX_QUERY_WORDS = 32;

export interface RankRequest {
  ranker: RankerName;
  question: string;
  /** The turn the question is asked at. */
  atTurnId: string;
  /** The import's session. */
  sessionId: string;
  /** Each turn's position on the line, oldest first: later turns than the asked one are not seen. */
  positions: ReadonlyMap<string, number>;
}

/** Turn ids, best first, without repeats. */
export async function rankTurns(ledger: AgentsLedger, request: RankRequest): Promise<string[]> {
  if (request.ranker === 'retrieval') {
    const { pieces } = await ledger.retrieve(request.atTurnId, {
      query: request.question,
      budgetTokens: Number.MAX_SAFE_INTEGER,
      candidates: CANDIDATES,
    });
    // A piece is [the turn answered, the matching reply] or [the match]: the match ranked, so it comes first.
    return unique(pieces.flatMap((piece) => [...piece.turnIds].reverse()));
  }
  const words = recallQueryWords(request.question);
  if (words.length === 0) return [];
  const { hits } = await ledger.search(words.join(' '), {
    view: 'raw',
    sessionId: request.sessionId,
    turnType: 'normal',
    anyWord: true,
    limit: CANDIDATES,
  });
  const asked = request.positions.get(request.atTurnId) ?? -1;
  return unique(hits.map((hit) => hit.turnId).filter((id) => (request.positions.get(id) ?? Number.POSITIVE_INFINITY) <= asked));
}

/**
 * The words recall searches by, as agents-ledger's query-terms.ts picks them (not public): distinct
 * lower-case words without stopwords and one- or two-digit numbers; all words when none is left.
 */
export function recallQueryWords(question: string): string[] {
  const words = [...new Set((question.normalize('NFKC').match(WORD_PATTERN) ?? []).map((word) => word.toLowerCase()))];
  const content = words.filter((word) => !STOPWORDS.has(word) && !/^\p{N}{1,2}$/u.test(word));
  return (content.length > 0 ? content : words).slice(0, MAX_QUERY_WORDS);
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
