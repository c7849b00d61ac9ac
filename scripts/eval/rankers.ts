// The two rankings of a conversation's turns for a question that the evaluation scores by
// recall@k (rank-evidence.ts), through the ledger's public API only:
// - retrieval: what the `retrieval` strategy sends, in its order (ledger.retrieve: bm25 on the
//   question's words, turns holding every word first; a reply ranked with the turn it answers).
// - recall: the ranking the hybrid's recall starts from (ledger.search, raw turns: bm25 on the
//   question's content words, any of them). Recall then adds the turns beside each match, valued
//   below it, and packs by value; its full ranking (rankRecall) is not public, so this is its first
//   stage. Neighbours sit in their match's session, so sessions rank alike bar a neighbour across a
//   session boundary.
// With an embedder (--embedder), two more:
// - vectors: cosine similarity of the question's vector to each turn's (ledger.searchByMeaning over
//   the session's line; the turns must be embedded first, ledger.embedMissing).
// - fused: recall and vectors by reciprocal rank fusion (rank-fusion.ts), as the hybrid's recall
//   fuses them before it adds neighbours.
// All see only the turns up to the one the question is asked at.

import type { AgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import { STOPWORDS, WORD_PATTERN } from '../../packages/core/src/index.ts';
import { fuseRankings } from './rank-fusion.ts';

export const RANKERS = ['retrieval', 'recall'] as const;
/** The rankings an embedder adds. */
export const EMBEDDING_RANKERS = ['vectors', 'fused'] as const;
export type RankerName = (typeof RANKERS)[number] | (typeof EMBEDDING_RANKERS)[number];

/** The rankings a run measures: the bm25 ones, and with an embedder the vector ones too. */
export function rankersFor(withEmbedder: boolean): RankerName[] {
  return withEmbedder ? [...RANKERS, ...EMBEDDING_RANKERS] : [...RANKERS];
}

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
  if (request.ranker === 'fused') {
    const [recall, vectors] = await Promise.all(
      (['recall', 'vectors'] as const).map((ranker) => rankTurns(ledger, { ...request, ranker })),
    );
    return fuseRankings([recall ?? [], vectors ?? []]);
  }
  if (request.ranker === 'vectors') {
    const { hits } = await ledger.searchByMeaning(request.question, { sessionId: request.sessionId, limit: CANDIDATES });
    return seenAt(
      request,
      hits.map((hit) => hit.turn.id),
    );
  }
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
  return seenAt(
    request,
    hits.map((hit) => hit.turnId),
  );
}

/** The ids on the line up to the asked turn, in order, without repeats. */
function seenAt(request: RankRequest, ids: readonly string[]): string[] {
  const asked = request.positions.get(request.atTurnId) ?? -1;
  return unique(ids.filter((id) => (request.positions.get(id) ?? Number.POSITIVE_INFINITY) <= asked));
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
