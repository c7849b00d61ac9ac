// What the MCP tools do, as plain functions over the agents ledger: search the whole history (by
// words, or by meaning with the ledger's embedder), expand a compaction or topic back to its turns,
// build the context at a turn, list sessions. They only read. Results are JSON-ready and capped in size (MCP clients refuse huge results);
// mcp-server.ts registers them with the SDK.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { contentTerms, contentText, InvalidInputError, LedgerError, type Turn } from '@agent-ledger/core';
import { searchByMeaningView } from './meaning-search.ts';

/** Text of one turn in a result by default; longer text is cut with a marker saying how to get all of it. */
export const MAX_TURN_CHARS = 4000;
/** The most `expand` returns of one turn when asked for more (`maxChars`). */
export const MAX_TURN_CHARS_LIMIT = 100_000;
/** Turns one `expand` call returns at most; `offset` pages through the rest. */
export const MAX_EXPAND_TURNS = 50;
/** Tokens get_context builds when no budget is given: a whole window would flood the client. */
export const DEFAULT_CONTEXT_BUDGET = 8000;

export interface TurnView {
  id: string;
  sessionId: string;
  type: 'normal' | 'compaction';
  role: string | null;
  time: string;
  text: string;
  /** For compactions: what the summary stands for. */
  summarizedThroughTurnId?: string;
  tokensBefore?: number;
  tokensAfter?: number;
}

export function turnView(turn: Turn, maxChars = MAX_TURN_CHARS): TurnView {
  const time = new Date(turn.timestamp).toISOString();
  if (turn.turnType === 'compaction') {
    return {
      id: turn.id,
      sessionId: turn.sessionId,
      type: 'compaction',
      role: null,
      time,
      text: clipText(turn.summary, turn.id, maxChars),
      summarizedThroughTurnId: turn.summarizedThroughTurnId,
      tokensBefore: turn.tokensBefore,
      tokensAfter: turn.tokensAfter,
    };
  }
  return {
    id: turn.id,
    sessionId: turn.sessionId,
    type: 'normal',
    role: turn.role,
    time,
    text: clipText(contentText(turn.content), turn.id, maxChars),
  };
}

function clipText(text: string, id: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters: expand ${id} with a larger maxChars]`;
}

export interface SearchHistoryInput {
  query: string;
  /** `words` (default) or `semantic`: by stored vectors, for a paraphrase that shares no word with the turn. */
  mode?: 'words' | 'semantic';
  session?: string;
  raw?: boolean;
  limit?: number;
  cursor?: string;
}

/** `noEmbedderAdvice`: set when the ledger has no embedder (McpServerOptions); mode semantic is refused with it. */
export async function searchHistory(ledger: AgentsLedger, input: SearchHistoryInput, noEmbedderAdvice?: string) {
  if (input.mode === 'semantic') return searchHistoryByMeaning(ledger, input, noEmbedderAdvice);
  // A model asks as it would ask a person ("which redis host does staging use"): search its content
  // words, as recall does, so no turn ranks for sharing "does" with the question.
  const words = contentTerms(input.query).join(' ') || input.query;
  const result = await ledger.search(words, {
    sessionId: input.session,
    view: input.raw ? 'raw' : 'resolved',
    limit: input.limit ?? 10,
    cursor: input.cursor,
  });
  return {
    hits: result.hits.map((hit) => ({
      turnId: hit.turnId,
      sessionId: hit.sessionId,
      type: hit.turnType,
      role: hit.role,
      time: new Date(hit.timestamp).toISOString(),
      snippet: hit.snippet,
      // The summarized turn that matched, when the hit is the compaction standing in for it.
      via: hit.via,
    })),
    nextCursor: result.nextCursor,
  };
}

async function searchHistoryByMeaning(ledger: AgentsLedger, input: SearchHistoryInput, noEmbedderAdvice?: string) {
  if (input.raw === true || input.cursor !== undefined) {
    const given = input.raw === true ? 'raw' : 'cursor';
    throw new InvalidInputError(
      `mode "semantic" returns the turns themselves, nearest in meaning first, all at once: leave out ${given}.`,
      'mode',
    );
  }
  // The whole question is embedded: meaning lives in its phrasing, not in its content words alone.
  const request = { query: input.query, session: input.session, limit: input.limit ?? 10 };
  const result = await searchByMeaningView(ledger, request, noEmbedderAdvice);
  return {
    mode: result.mode,
    model: result.model,
    hits: result.hits.map((hit) => ({
      turnId: hit.turnId,
      sessionId: hit.sessionId,
      type: 'normal' as const,
      role: hit.role,
      time: new Date(hit.timestamp).toISOString(),
      similarity: hit.similarity,
      snippet: hit.snippet,
    })),
    unembedded: result.unembedded,
    ...(result.unembedded > 0
      ? { note: `${result.unembedded} turns have no vector yet and cannot be found by meaning; mode "words" finds them.` }
      : {}),
    nextCursor: null,
  };
}

export async function expand(
  ledger: AgentsLedger,
  input: { id: string; session?: string; offset?: number; limit?: number; maxChars?: number },
) {
  const turn = await ledger.getTurn(await turnOrHead(ledger, input.id));
  let kind: 'compaction' | 'topic' | 'turn';
  let turns: Turn[];
  if (turn.turnType === 'compaction') {
    kind = 'compaction';
    turns = await ledger.getSummarizedTurns(turn.id);
  } else {
    try {
      turns = await ledger.expandTopic(turn.id, { sessionId: input.session });
      kind = 'topic';
    } catch (error) {
      // Not a topic (no union-find compaction, or not a topic's root): the turn itself.
      if (!LedgerError.isInstance(error) || error.code !== 'CLUSTER_NOT_FOUND') throw error;
      kind = 'turn';
      turns = [turn];
    }
  }
  const offset = input.offset ?? 0;
  const limit = Math.min(input.limit ?? MAX_EXPAND_TURNS, MAX_EXPAND_TURNS);
  const page = turns.slice(offset, offset + limit);
  return {
    id: turn.id,
    kind,
    total: turns.length,
    offset,
    turns: page.map((item) => turnView(item, input.maxChars)),
    nextOffset: offset + page.length < turns.length ? offset + page.length : null,
  };
}

/** A turn id, or a session id standing for the session's head turn. */
export async function turnOrHead(ledger: AgentsLedger, id: string): Promise<string> {
  try {
    await ledger.getTurn(id);
    return id;
  } catch (error) {
    if (!LedgerError.isInstance(error) || error.code !== 'TURN_NOT_FOUND') throw error;
    const session = await ledger.getSession(id).catch(() => null);
    if (!session) throw error;
    if (session.headTurnId === null) throw new InvalidInputError(`Session ${id} has no turns yet.`, 'id');
    return session.headTurnId;
  }
}

export async function getContext(
  ledger: AgentsLedger,
  input: { turnId?: string; session?: string; budget?: number; query?: string; retrieve?: boolean },
) {
  if (input.retrieve && !input.query?.trim())
    throw new InvalidInputError('retrieve recalls the turns that answer a query: give the query too.', 'retrieve');
  let turnId = input.turnId === undefined ? undefined : await turnOrHead(ledger, input.turnId);
  if (turnId === undefined) {
    if (input.session === undefined)
      throw new InvalidInputError('Give turnId, or session for the context at its head.', 'turnId');
    const head = (await ledger.getSession(input.session)).headTurnId;
    if (head === null) throw new InvalidInputError(`Session ${input.session} has no turns yet.`, 'session');
    turnId = head;
  }
  const built = await ledger.buildContext(turnId, {
    budgetTokens: input.budget ?? DEFAULT_CONTEXT_BUDGET,
    query: input.query,
    retrieval: input.retrieve === true,
    sessionId: input.session,
  });
  return {
    turnId,
    tokens: built.tokens,
    compactionTurnId: built.compactionTurnId,
    system: built.system,
    messages: built.messages.map((message) => ({ role: message.role, text: contentText(message.content) })),
    includedTurnIds: built.includedTurnIds,
    retrievedTurnIds: built.retrievedTurnIds,
    topics: built.topics.map((topic) => topic.id),
    // A read-only ledger (`nexus mcp`) ranks by the vectors stored; this says how many turns had none.
    ...(built.missingVectors ? { missingVectors: built.missingVectors } : {}),
  };
}

export async function listSessions(ledger: AgentsLedger, input: { limit?: number; offset?: number }) {
  const sessions = await ledger.listSessions({ limit: input.limit ?? 50, offset: input.offset ?? 0 });
  return {
    sessions: sessions.map((session) => ({
      id: session.id,
      label: session.label,
      headTurnId: session.headTurnId,
      parentSessionId: session.parentSessionId,
      forkedFromTurnId: session.forkedFromTurnId,
      created: new Date(session.createdAt).toISOString(),
    })),
  };
}
