// Full-text search over turns and events, the matches recall ranks on one line, and the turns'
// embedding vectors: store operations with engine-neutral inputs. A caller passes words (already
// normalised by core's searchTerms: NFKC, lower-case, distinct, at most 32) and options, never an
// engine's query syntax; it gets back scores where HIGHER IS BETTER and opaque cursors.
//
// - Scores are the engine's relevance (SQLite: bm25 negated; PostgreSQL: ts_rank_cd), comparable
//   only within one search: use them to order and for ratios to the best hit, nothing else.
// - A cursor is a string the engine made for the hit it follows; pass it back unchanged, with the
//   same query and filters, to read the next page. Pages neither repeat nor skip while the index is
//   unchanged. A string the engine did not make is InvalidInputError (field `cursor`).
// - `advanced` queries are the engine's own syntax, passed through as typed: SQLite FTS5 MATCH
//   syntax (phrases, NEAR, prefix*, AND/OR/NOT, column filters); PostgreSQL will read them with
//   websearch_to_tsquery. Syntax the engine refuses is SearchSyntaxError, never a driver error.
// - Snippets are the matched text with each matching word in [brackets] and `…` where text was
//   cut: text, not markup (nothing in them is escaped or interpreted).
// - What one search ranks is bounded, whatever the ledger's size (docs/search.md, "Search at any
//   size"): a word more than 1,000 rows hold does not rank when the query has a rarer word (and an
//   any-word match leaves it out), and when more than 1,000 rows match under the filters, only the
//   1,000 newest rank. Every page of one search makes the same choices while the index is unchanged.

import type { EventRecord } from './event-store.ts';

/** A session's turns with depth in [fromDepth, toDepth]: a piece of a line (agents-ledger's ChainSegment). */
export interface LineSegment {
  sessionId: string;
  fromDepth: number;
  toDepth: number;
}

/**
 * What to look for. Words: `all` every word, `any` any word (ranked by how well each matches),
 * `all-then-any` every word, or any word when no row under the filters holds every word (the
 * choice depends on the query and filters alone, so every page of a search makes the same one).
 * No words: nothing matches.
 */
export type SearchMatch = { words: readonly string[]; mode: 'all' | 'any' | 'all-then-any' } | { advanced: string };

export interface TurnSearchFilters {
  role?: 'user' | 'assistant';
  turnType?: 'normal' | 'compaction';
  /** `metadata.author`, as the importer records it. */
  author?: string;
  /** Timestamp bounds, inclusive, ms since the epoch. */
  since?: number;
  until?: number;
  /** Only turns on this line, or of these sessions (a session's forks), when given. */
  scope?: { line: readonly LineSegment[]; sessionIds?: readonly string[] };
}

/** The newest compaction in effect on the viewed line: it stands in for every turn it covers there. */
export interface LineCompaction {
  id: string;
  depth: number;
  /** Normal turns at or below this depth on the line are summarized (-1: none). */
  summarizedThroughDepth: number;
}

export interface TurnSearchQuery {
  match: SearchMatch;
  filters?: TurnSearchFilters;
  /**
   * `raw`: the matching turns. `resolved`: each match grouped under the turn that stands for it —
   * on the viewed line (`filters.scope.line`) `lineCompaction` when it covers the match, elsewhere
   * the newest compaction of the match's own session's line when that covers it (a `full` fork's
   * ignored compactions never do), else the turn itself — best match first, one hit per group.
   */
  view: 'raw' | 'resolved';
  lineCompaction?: LineCompaction | null;
  /** Hits per page, 1 or more. */
  limit: number;
  cursor?: string;
  /** Without snippets (recall reads scores only): every hit's snippet is ''. Default true. */
  snippets?: boolean;
}

export interface TurnSearchHit {
  /** The best matching turn (of its group, in the resolved view). */
  turnId: string;
  sessionId: string;
  depth: number;
  turnType: 'normal' | 'compaction';
  role: 'user' | 'assistant' | null;
  timestamp: number;
  /** Higher is better. */
  score: number;
  snippet: string;
  /** The turn that stands for the match (the match itself in the raw view or when nothing covers it). */
  canonicalTurnId: string;
  canonicalSessionId: string;
  canonicalTimestamp: number;
  /** Continues the search right after this hit. */
  cursor: string;
}

export interface SearchPage<Hit> {
  hits: Hit[];
  /** Null when this page was the last. */
  nextCursor: string | null;
}

export interface EventSearchFilters {
  channel?: string;
  author?: string;
  kind?: string;
  /** occurredAt bounds, inclusive, ms since the epoch. */
  since?: number;
  until?: number;
}

export interface EventSearchQuery {
  match: SearchMatch;
  filters?: EventSearchFilters;
  limit: number;
  cursor?: string;
}

export interface EventSearchHit {
  event: EventRecord;
  /** Higher is better. */
  score: number;
  snippet: string;
  cursor: string;
}

/** An embedding of one turn by one model. */
export interface TurnEmbedding {
  turnId: string;
  vector: Float32Array;
}

/** A stored vector with the model that made it (what a complete export reads). */
export interface ModelTurnEmbedding extends TurnEmbedding {
  model: string;
}

/** A query vector and where to look: see SearchStore.nearestTurns. */
export interface NearestTurnsQuery {
  /** The model whose stored vectors are compared. */
  model: string;
  /** The query vector. Only stored vectors of its length are compared (another length cannot be). */
  vector: Float32Array;
  /**
   * Only turns on this line (a session's line: its own turns and those before its fork point);
   * every turn with a vector of `model` when absent.
   */
  line?: readonly LineSegment[];
  /** Turns to return, a whole number from 1 (anything else is InvalidInputError, field `limit`). */
  limit: number;
}

/** A turn near the query vector. */
export interface NearestTurn {
  turnId: string;
  sessionId: string;
  depth: number;
  /** Cosine similarity to the query vector, -1 to 1 (0 when either vector is all zeros): higher is nearer. */
  similarity: number;
}

export interface SearchStore {
  /** One page of turn matches, best first (ties: older rows first). */
  searchTurns(query: TurnSearchQuery): Promise<SearchPage<TurnSearchHit>>;
  /** One page of event matches, best first. */
  searchEvents(query: EventSearchQuery): Promise<SearchPage<EventSearchHit>>;
  /**
   * Turns (of every session, no filters) that match, `all-then-any` choosing as a search does: the
   * document frequency of a word, with `any` of one word.
   */
  countTurnMatches(match: SearchMatch): Promise<number>;
  /** Turns in the ledger, every kind and session: the document count idf is computed over. */
  countTurns(): Promise<number>;
  /** The normal turns of the line with no vector of `model`, oldest (shallowest) first, with their searchText. */
  turnsWithoutEmbedding(model: string, line: readonly LineSegment[]): Promise<Array<{ turnId: string; text: string | null }>>;
  /** Stores these vectors of `model` (replacing a turn's earlier one), all or none. */
  putTurnEmbeddings(model: string, embeddings: readonly TurnEmbedding[]): Promise<void>;
  /**
   * Every stored vector of every model, `limit` at a time, ordered by (model, turnId) in the
   * engine's order: those after `after` (from the first when absent). For a complete export.
   */
  turnEmbeddingPage(page: { after?: { model: string; turnId: string }; limit: number }): Promise<ModelTurnEmbedding[]>;
  /** Every vector of `model` for turns of the line, in no particular order. */
  turnEmbeddings(model: string, line: readonly LineSegment[]): Promise<Array<TurnEmbedding & { depth: number }>>;
  /**
   * The `limit` turns whose vectors of `model` are most similar (cosine) to `query.vector`, nearest
   * first; equal similarities: the deeper turn first, then the greater turn id. Exact: every stored
   * vector in scope is compared (an engine may do it in SQL, with an extension such as sqlite-vec,
   * or in JavaScript; the answers agree up to float32 rounding of the similarity). A caller reads
   * k rows, not every vector of the line.
   */
  nearestTurns(query: NearestTurnsQuery): Promise<NearestTurn[]>;
}
