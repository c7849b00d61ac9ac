// Retrieval over raw turns: the turns of a line that match a query best (the store's full-text
// search: bm25 on SQLite), as of a turn, packed into a token budget. It is what plain
// retrieval-augmented generation sends, and one of the sources a hybrid context draws on (issue 8).
// Every piece says which turns it holds and when they were said.

import { contentText, InvalidInputError, type NormalTurn, searchTerms } from '@agent-ledger/core';
import type { StoredTurn, StoreOperations } from '@agent-ledger/store';
import type { LedgerContext } from '../ledger-context.ts';
import { searchTurns } from '../search/search-turns.ts';
import { chainSegments, isOnChain, requireSessionRow, requireTurnRow } from '../store/chain.ts';
import { turnFromRow } from '../store/row-mapping.ts';
import { readTurnRowsById } from '../store/turns-by-id.ts';

export interface RetrieveOptions {
  /** What to look for: the incoming message, by default in a runtime. */
  query: string;
  /** Tokens the pieces may take in all. */
  budgetTokens: number;
  /** Whose line to search (default: the session that wrote `atTurnId`). */
  sessionId?: string;
  /** Turns already in the context, left out. */
  excludeTurnIds?: ReadonlySet<string>;
  /** How many ranked matches to consider (default 100, at most 200). */
  candidates?: number;
  /**
   * Leave out matches scoring below this fraction of the best match's score (0–1, default 0:
   * every match). A cut-off keeps turns that share a word or two with the message from filling
   * the budget.
   */
  minRelevance?: number;
}

export interface RetrievedPiece {
  /** The matching turn and, when it is a reply, the turn it answers: oldest first. */
  turnIds: string[];
  /** The match's rank among the candidates (0 = best). */
  rank: number;
  text: string;
  tokens: number;
}

export interface Retrieval {
  pieces: RetrievedPiece[];
  /** The pieces in conversation order, rendered for a context (empty when nothing matched). */
  text: string;
  tokens: number;
}

export const RETRIEVAL_HEADER =
  'Retrieved from earlier in the conversation for the new message, oldest first ([id · time UTC · role] cites each turn; ' +
  'where two lines disagree, the later one is newer and holds):';

/** Turns on the line up to `atTurnId` that match `query`, best first, within the budget. */
export async function retrieveTurns(ledger: LedgerContext, atTurnId: string, options: RetrieveOptions): Promise<Retrieval> {
  const budget = options.budgetTokens;
  if (typeof budget !== 'number' || !(budget >= 0)) {
    throw new InvalidInputError(`budgetTokens must be a number of tokens, 0 or more; got ${String(budget)}.`, 'budgetTokens');
  }
  const { store } = ledger;
  const at = await requireTurnRow(store, atTurnId);
  const view = await requireSessionRow(store, options.sessionId ?? at.sessionId);
  const line = await chainSegments(store, at);
  const query = options.query.trim();
  if (query === '') return { pieces: [], text: '', tokens: 0 };
  const used = new Set(options.excludeTurnIds ?? []);
  const matchesOnLine = async (anyWord: boolean) => {
    const { hits } = await searchTurns(ledger, query, {
      view: 'raw',
      sessionId: view.id,
      turnType: 'normal',
      limit: Math.min(200, Math.max(1, options.candidates ?? 100)),
      anyWord,
    });
    const matched = await readTurnRowsById(
      store,
      hits.map((hit) => hit.turnId),
    );
    // Relevance is a hit's score over the best one's (both of one sign: the ratio is 1 at the best).
    const best = hits[0]?.score ?? 0;
    const floor = options.minRelevance ?? 0;
    const rows = hits
      .filter((hit) => floor <= 0 || best === 0 || hit.score / best >= floor)
      .map((hit) => matched.get(hit.turnId))
      .filter((row): row is NonNullable<typeof row> => row !== undefined && isOnChain(line, row) && row.depth <= at.depth);
    return { matched, rows };
  };
  let { matched, rows: onLine } = await matchesOnLine(false);
  // Search wants every word first. The message being answered has all of its own words, so when
  // it (excluded) or turns off this line were the only such matches, any word will do.
  if (onLine.every((row) => used.has(row.id)) && searchTerms(query).length > 1) {
    ({ matched, rows: onLine } = await matchesOnLine(true));
  }

  const headerTokens = ledger.tokenCounter.countText(RETRIEVAL_HEADER);
  let tokens = headerTokens;
  const pieces: RetrievedPiece[] = [];
  for (const [rank, row] of onLine.entries()) {
    if (used.has(row.id)) continue;
    const turn = turnFromRow(row) as NormalTurn;
    // A reply is read with what it answers: "yes, 16.2" says nothing alone.
    const parent = turn.role === 'assistant' && row.parentTurnId ? await requireTurnRow(store, row.parentTurnId) : null;
    const turns = [
      parent && parent.turnType === 'normal' && !used.has(parent.id) ? (turnFromRow(parent) as NormalTurn) : null,
      turn,
    ].filter((candidate): candidate is NormalTurn => candidate !== null);
    const text = turns.map(renderRetrievedTurn).join('\n');
    const cost = ledger.tokenCounter.countText(text) + 1;
    if (tokens + cost > budget) continue;
    tokens += cost;
    for (const piece of turns) used.add(piece.id);
    pieces.push({ turnIds: turns.map((piece) => piece.id), rank, text, tokens: cost });
  }
  if (pieces.length === 0) return { pieces, text: '', tokens: 0 };
  const depths = new Map<RetrievedPiece, number>();
  for (const piece of pieces) depths.set(piece, await depthOf(matched, store, piece));
  const ordered = [...pieces].sort((a, b) => (depths.get(a) as number) - (depths.get(b) as number));
  return { pieces, text: `${RETRIEVAL_HEADER}\n${ordered.map((piece) => piece.text).join('\n')}`, tokens };
}

export function renderRetrievedTurn(turn: NormalTurn): string {
  const time = new Date(turn.timestamp).toISOString().slice(0, 16).replace('T', ' ');
  return `[${turn.id} · ${time} · ${turn.role}] ${contentText(turn.content).replace(/\s+/g, ' ').trim()}`;
}

async function depthOf(matched: ReadonlyMap<string, StoredTurn>, store: StoreOperations, piece: RetrievedPiece): Promise<number> {
  const first = piece.turnIds[0] as string;
  return (matched.get(first) ?? (await requireTurnRow(store, first))).depth;
}
