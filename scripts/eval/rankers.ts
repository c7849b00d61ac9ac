// The rankings of a conversation's turns for a question that the evaluation scores by recall@k
// (rank-evidence.ts), through the ledger's public API only:
// - retrieval: what the `retrieval` strategy sends, in its order (ledger.retrieve: bm25 on the
//   question's words, turns holding every word first; a reply ranked with the turn it answers).
// - recall: the hybrid context's recall ranking before its budget (ledger.recall, bm25 alone: the
//   question's content words, any of them; speakers and dates read as such; the turns beside each
//   match at a share of its value).
// With an embedder (--embedder), two more:
// - vectors: cosine similarity of the question's vector to each turn's (ledger.searchByMeaning over
//   the session's line; the turns must be embedded first, ledger.embedMissing).
// - fused: ledger.recall with the stored vectors fused in, as the hybrid context ranks with an embedder.
// All see only the turns up to the one the question is asked at.

import type { AgentsLedger } from '../../packages/agents-ledger/src/index.ts';

export const RANKERS = ['retrieval', 'recall'] as const;
/** The rankings an embedder adds. */
export const EMBEDDING_RANKERS = ['vectors', 'fused'] as const;
export type RankerName = (typeof RANKERS)[number] | (typeof EMBEDDING_RANKERS)[number];

/** The rankings a run measures: the bm25 ones, and with an embedder the vector ones too. */
export function rankersFor(withEmbedder: boolean): RankerName[] {
  return withEmbedder ? [...RANKERS, ...EMBEDDING_RANKERS] : [...RANKERS];
}

/** Ranked turns asked for: the most retrieve gives (recall's default candidates is 200 too). */
const CANDIDATES = 200;

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
  if (request.question.trim() === '') return [];
  const { turns } = await ledger.recall(request.atTurnId, {
    query: request.question,
    sessionId: request.sessionId,
    limit: CANDIDATES,
    byMeaning: request.ranker === 'fused',
  });
  return unique(turns.map(({ turn }) => turn.id));
}

/** The ids on the line up to the asked turn, in order, without repeats. */
function seenAt(request: RankRequest, ids: readonly string[]): string[] {
  const asked = request.positions.get(request.atTurnId) ?? -1;
  return unique(ids.filter((id) => (request.positions.get(id) ?? Number.POSITIVE_INFINITY) <= asked));
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
