// Full-text search over every turn — normal and compaction, every session and fork — ranked by
// the store's relevance (bm25 on SQLite) with highlighted snippets, through the store's
// searchTurns (words and options in, never an engine's syntax unless the caller asks `advanced`). The resolved view (default) reports a hit inside a summarized
// turn as the canonical compaction that stands in for it, annotated `via`; the raw view reports
// the matching turns themselves.

import { InvalidInputError, type Role, requireSearchText, searchTerms, type TurnType } from '@agent-ledger/core';
import type { SessionRecord, StoreOperations } from '@agent-ledger/store';
import { effectiveCompaction } from '../chain-arithmetic.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { chainSegments, requireSessionRow, requireTurnRow } from '../store/chain.ts';

export interface TurnSearchOptions {
  /** `resolved` (default): hits in summarized turns surface as their canonical compaction. */
  view?: 'resolved' | 'raw';
  /** Only turns on this session's line (its own and those it inherited from its fork point). */
  sessionId?: string;
  /** With `sessionId`: also the turns of every fork below it. */
  includeForks?: boolean;
  role?: Role;
  turnType?: TurnType;
  /** `metadata.author`, as the importer records it. */
  author?: string;
  /** Turn timestamp bounds, inclusive, ms since the epoch. */
  since?: number;
  until?: number;
  /** Hits per page (default 20, at most 200). */
  limit?: number;
  cursor?: string;
  /**
   * The query is the store engine's own syntax, passed through (SQLite: FTS5 — phrases, NEAR,
   * prefix*, column filters); syntax the engine refuses is SearchSyntaxError.
   */
  advanced?: boolean;
  /** Any word of the query may match (ranked), without first looking for turns holding every word. */
  anyWord?: boolean;
}

export interface TurnHit {
  /** The turn to open: the canonical compaction in the resolved view when the match was summarized. */
  turnId: string;
  sessionId: string;
  turnType: TurnType;
  /** Resolved view: the matching turn a compaction stands in for (null when the hit is the turn itself). */
  via: string | null;
  role: Role | null;
  timestamp: number;
  snippet: string;
  /** Relevance, LOWER is better: the store's score negated (on SQLite, FTS5's bm25 as is). */
  score: number;
  /** Continues the search right after this hit (to page through several ranked lists at once). */
  cursor?: string;
}

export interface TurnSearchResult {
  hits: TurnHit[];
  nextCursor: string | null;
}

/** What the store is asked: words and options (or the engine's syntax, when advanced). */
export type TurnSearchQuery = Parameters<StoreOperations['searchTurns']>[0];
type SearchMatch = TurnSearchQuery['match'];
type StoreHit = Awaited<ReturnType<StoreOperations['searchTurns']>>['hits'][number];

export async function searchTurns(
  ledger: LedgerContext,
  query: string,
  options: TurnSearchOptions = {},
): Promise<TurnSearchResult> {
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new InvalidInputError('limit must be 1 to 200.', 'limit');
  const match = searchMatch(requireSearchText(query), options);
  const scope = await searchScope(ledger.store, options);
  // Every term must match; only when nothing does anywhere, any term may (ranked by relevance). The
  // store makes the choice from the query and filters alone, so every page of one search makes the same one.
  const page = await ledger.store.searchTurns({
    match,
    view: options.view === 'raw' ? 'raw' : 'resolved',
    filters: {
      role: options.role,
      turnType: options.turnType,
      author: options.author,
      since: options.since,
      until: options.until,
      scope: scope?.scope,
    },
    lineCompaction: scope?.lineCompaction ?? null,
    limit,
    cursor: options.cursor,
  });
  return { hits: page.hits.map(toHit), nextCursor: page.nextCursor };
}

/** The user's text as the store's match: its words, or the engine's syntax as typed when advanced. */
export function searchMatch(text: string, options: Pick<TurnSearchOptions, 'advanced' | 'anyWord'> = {}): SearchMatch {
  if (options.advanced) return { advanced: text };
  return { words: searchTerms(text), mode: options.anyWord ? 'any' : 'all-then-any' };
}

interface SearchScope {
  scope: NonNullable<NonNullable<TurnSearchQuery['filters']>['scope']>;
  lineCompaction: TurnSearchQuery['lineCompaction'];
}

/** With a session: the turns on its line (and its forks'), and the compaction standing in there. */
async function searchScope(store: StoreOperations, options: TurnSearchOptions): Promise<SearchScope | null> {
  if (options.sessionId === undefined) return null;
  const session = await requireSessionRow(store, options.sessionId);
  const head = session.headTurnId ? await requireTurnRow(store, session.headTurnId) : null;
  const line = head ? await chainSegments(store, head) : [];
  const forks = options.includeForks ? await descendants(store, session) : [];
  const newest = head ? await effectiveCompaction(store, head, session) : null;
  return {
    scope: { line, sessionIds: forks },
    lineCompaction: newest
      ? { id: newest.id, depth: newest.depth, summarizedThroughDepth: newest.summarizedThroughDepth ?? -1 }
      : null,
  };
}

async function descendants(store: StoreOperations, session: SessionRecord): Promise<string[]> {
  const found: string[] = [];
  let frontier = [session.id];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) for (const child of await store.childSessions(id)) next.push(child.id);
    found.push(...next);
    frontier = next;
  }
  return found;
}

function toHit(hit: StoreHit): TurnHit {
  const cursor = hit.cursor;
  if (hit.canonicalTurnId === hit.turnId) {
    return {
      turnId: hit.turnId,
      sessionId: hit.sessionId,
      turnType: hit.turnType,
      via: null,
      role: hit.role,
      timestamp: hit.timestamp,
      snippet: flatten(hit.snippet),
      score: -hit.score,
      cursor,
    };
  }
  return {
    turnId: hit.canonicalTurnId,
    sessionId: hit.canonicalSessionId,
    turnType: 'compaction',
    via: hit.turnId,
    role: null,
    timestamp: hit.canonicalTimestamp,
    snippet: flatten(hit.snippet),
    score: -hit.score,
    cursor,
  };
}

/** Snippets are shown one per line; the matched text's own line breaks would split them. */
function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
