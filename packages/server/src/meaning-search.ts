// Search by meaning for the HTTP route and the MCP tool: the ledger's searchByMeaning (the stored
// vectors nearest the query's), each hit cut to a snippet a client can list. A server started
// without an embedder says so before the ledger is asked, in the words of whoever started it; the
// ranking itself is the ledger's.

import type { AgentsLedger, MeaningHit } from '@agent-ledger/agents-ledger';
import { contentText } from '@agent-ledger/core';
import { HttpError } from './http-errors.ts';

/** The code of a search by meaning refused because the ledger has no embedder (400: search by words instead). */
export const EMBEDDER_NOT_CONFIGURED = 'EMBEDDER_NOT_CONFIGURED';

/** Characters of a hit's text in its snippet. */
const SNIPPET_CHARS = 300;

export interface MeaningSearchRequest {
  query: string;
  /** Only this session's line (its own turns and those before its fork point). */
  session?: string;
  /** Hits to return (1 to 200). */
  limit?: number;
}

export interface MeaningHitView {
  turnId: string;
  sessionId: string;
  role: MeaningHit['turn']['role'];
  timestamp: number;
  /** Cosine similarity to the query, from -1 to 1 (4 decimals): higher is nearer. */
  similarity: number;
  /** The start of the turn's text. */
  snippet: string;
}

export interface MeaningSearchView {
  mode: 'semantic';
  /** The embedding model whose stored vectors were compared. */
  model: string;
  hits: MeaningHitView[];
  /** Turns on the searched lines with no vector of this model yet: `nexus embed` (embedMissing) stores them. */
  unembedded: number;
}

/**
 * The nearest turns by meaning. `noEmbedderAdvice` is set by a server whose ledger has no embedder:
 * the search is refused with it (EMBEDDER_NOT_CONFIGURED) without touching the ledger. Unset, the
 * ledger is asked, and one without an embedder refuses by itself (INVALID_INPUT).
 */
export async function searchByMeaningView(
  ledger: AgentsLedger,
  request: MeaningSearchRequest,
  noEmbedderAdvice: string | undefined,
): Promise<MeaningSearchView> {
  if (noEmbedderAdvice !== undefined) throw new HttpError(EMBEDDER_NOT_CONFIGURED, noEmbedderAdvice);
  const result = await ledger.searchByMeaning(request.query, {
    ...(request.session === undefined ? {} : { sessionId: request.session }),
    ...(request.limit === undefined ? {} : { limit: request.limit }),
  });
  return {
    mode: 'semantic',
    model: result.model,
    hits: result.hits.map(({ turn, similarity }) => ({
      turnId: turn.id,
      sessionId: turn.sessionId,
      role: turn.role,
      timestamp: turn.timestamp,
      similarity: Math.round(similarity * 10_000) / 10_000,
      snippet: snippetOf(contentText(turn.content)),
    })),
    unembedded: result.unembedded,
  };
}

function snippetOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= SNIPPET_CHARS ? flat : `${flat.slice(0, SNIPPET_CHARS)}…`;
}
