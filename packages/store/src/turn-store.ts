// Sessions and turns: what every ledger operation reads, and the one write that moves a session
// forward (insert turns + compare-and-set of the head, atomically).

import type { SessionRecord, StoredTurn, TurnEventLink, TurnRecord } from './records.ts';

export interface SessionSettingsUpdate {
  contextWindow: number;
  reserveTokens: number;
  keepRecentTokens: number;
  calibration: unknown;
}

export interface AppendToSession {
  sessionId: string;
  /** The head the turns were planned on; the write happens only if the head is still this. */
  expectedHeadTurnId: string | null;
  /** In chain order; the first is the child of the expected head, each next one of the one before. */
  turns: readonly TurnRecord[];
  /** Events the new turns cite (each event must exist: the store refuses the write otherwise). */
  eventLinks?: readonly TurnEventLink[];
}

/** What an append found: written, or the head had moved on (nothing written). */
export type AppendOutcome = { written: true } | { written: false; actualHeadTurnId: string | null };

export interface ChainPageQuery {
  sessionId: string;
  /** Inclusive depth bounds within the session's own turns. */
  fromDepth: number;
  toDepth: number;
  /** Newest first (for readers that stop early); oldest first otherwise. */
  newestFirst?: boolean;
  limit?: number;
}

/** A stretch of one session's own turns, depths inclusive. */
export interface ChainRange {
  sessionId: string;
  fromDepth: number;
  toDepth: number;
}

export interface CoveringCompactionQuery {
  sessionId: string;
  /** The depth of the turn to cover. */
  depth: number;
  /** Only compactions at depth ≤ this (a fork point), and > `aboveDepth` (a `full` fork's floor). */
  maxDepth: number;
  aboveDepth: number;
}

export interface SessionStore {
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** Newest first (then by id), paged. */
  listSessions(page: { limit: number; offset: number }): Promise<SessionRecord[]>;
  /** Sessions forked from `sessionId`, oldest first. */
  childSessions(sessionId: string): Promise<SessionRecord[]>;
  insertSession(session: SessionRecord): Promise<void>;
  /** The only change a session row gets besides its head: settings learned from a model API. */
  updateSessionSettings(sessionId: string, update: SessionSettingsUpdate): Promise<SessionRecord | undefined>;
}

/** A turn, the newest compaction on its line, and where that compaction's raw turns resume. */
export interface TurnWithCompaction {
  turn: StoredTurn;
  /** The turn its latestCompactionId names (the turn itself when it is a compaction); undefined without one. */
  compaction?: StoredTurn;
  /** The turn `compaction.firstKeptTurnId` names; undefined when it names none. */
  firstKept?: StoredTurn;
}

export interface LineStartQuery {
  turnId: string;
  /** The session whose view of the line is read (default: the turn's own). */
  sessionId?: string;
  /** At most this many of the newest turns are read beside it (`LineStart.newest`). */
  newestLimit: number;
}

/** Where every context read starts, in one read: see `TurnStore.lineStart`. */
export interface LineStart extends TurnWithCompaction {
  /** The viewing session's row; undefined when no session has that id. */
  session?: SessionRecord;
  /**
   * Where the turn's raw turns resume by its own line's newest compaction: that compaction's first
   * kept turn's depth, else the depth after the compaction, else 0.
   */
  newestFromDepth: number;
  /**
   * The turn's own session's turns with depth in [newestFromDepth, turn.depth], newest first, at
   * most newestLimit: every stored field but `searchText`. That is the search index's copy of a
   * turn's text, which no context reads (it reads `content`); over a wire it was a third of the bytes.
   */
  newest: Array<Omit<StoredTurn, 'searchText'>>;
  /** Event ids cited by the turns of `newest` (turns citing none are absent). */
  newestEventIds: Map<string, string[]>;
}

export interface TurnStore {
  getTurn(turnId: string): Promise<StoredTurn | undefined>;
  /**
   * A turn with the newest compaction on its line and that compaction's first kept turn, in one
   * read (what a context starts from): one round trip where three point reads were three.
   */
  turnWithCompaction(turnId: string): Promise<TurnWithCompaction | undefined>;
  /**
   * `turnWithCompaction`, the viewing session's row, the newest turns of the turn's own session
   * since that compaction's first kept turn, and the events they cite: what buildContext reads
   * before anything else, in one round trip on an engine that pays one per statement.
   * Inside a transaction the session row is read as `getSession` reads it there (locked).
   */
  lineStart(query: LineStartQuery): Promise<LineStart | undefined>;
  /** The turns of `turnIds` that exist, by id. */
  getTurns(turnIds: readonly string[]): Promise<Map<string, StoredTurn>>;
  /** A session's own turns with depth in [fromDepth, toDepth]. */
  chainPage(query: ChainPageQuery): Promise<StoredTurn[]>;
  /**
   * The turns in every range, each once, by session then depth: the stretches around many search
   * hits in one round trip, where a chainPage per stretch paid one each (recall's neighbours).
   */
  chainRanges(ranges: readonly ChainRange[]): Promise<StoredTurn[]>;
  /**
   * Inserts the turns and moves the session head from `expectedHeadTurnId` to the last of them, in
   * one atomic step: on another engine a conditional UPDATE in the same transaction as the insert.
   */
  appendToSession(append: AppendToSession): Promise<AppendOutcome>;
  /** Compactions that folded in `compactionId`'s summary. */
  compactionsFolding(compactionId: string): Promise<StoredTurn[]>;
  /** The shallowest-reaching compaction of a session that covers `depth`, within the bounds. */
  compactionCovering(query: CoveringCompactionQuery): Promise<StoredTurn | undefined>;
  /** Event ids cited by each of these turns (turns citing none are absent). */
  eventIdsByTurn(turnIds: readonly string[]): Promise<Map<string, string[]>>;
  /** Turns citing an event, oldest first. */
  turnsCitingEvent(eventId: string): Promise<string[]>;
  /** The ids among `eventIds` that name no stored event. */
  missingEventIds(eventIds: readonly string[]): Promise<string[]>;
}
