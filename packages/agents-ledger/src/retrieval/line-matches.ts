// The full-text index asked about one line: which normal turns on the chain up to a turn match any
// of some words, with their scores, and how many turns of the ledger hold a word. Lean on purpose
// (no snippets, no resolved view): recall asks it several times per context.

import type { LedgerContext } from '../ledger-context.ts';
import type { ChainSegment } from '../store/chain.ts';

export interface LineMatch {
  turnId: string;
  depth: number;
  /** Relevance, higher is better (the store's score: bm25 negated on SQLite). */
  score: number;
}

export interface LineMatchRequest {
  segments: readonly ChainSegment[];
  words: readonly string[];
  limit: number;
  /** Only turns said within these bounds (ms since the epoch, inclusive): a day a question names. */
  within?: { since: number; until: number };
}

/** Up to `limit` normal turns of the line matching any of `words`, best first. */
export async function matchOnLine(ledger: LedgerContext, request: LineMatchRequest): Promise<LineMatch[]> {
  const { segments, words, limit, within } = request;
  if (segments.length === 0 || words.length === 0) return [];
  const { hits } = await ledger.store.searchTurns({
    match: { words, mode: 'any' },
    view: 'raw',
    filters: { turnType: 'normal', scope: { line: segments }, ...(within ? { since: within.since, until: within.until } : {}) },
    limit,
    snippets: false,
  });
  return hits.map((hit) => ({ turnId: hit.turnId, depth: hit.depth, score: hit.score }));
}

/** Turns (of every session) whose text holds `term`: the document frequency feedback weighs terms by. */
export function turnsHolding(ledger: LedgerContext, term: string): Promise<number> {
  return ledger.store.countTurnMatches({ words: [term], mode: 'any' });
}

/** Turns in the ledger, for inverse document frequencies. */
export function indexedTurns(ledger: LedgerContext): Promise<number> {
  return ledger.store.countTurns();
}
