// What the turns' hash-chain check and a checkpoint of session heads read (packages/agents-ledger
// turn-chain/): every turn with what its hash covers besides itself, and every session's head with
// the extent of its own turns. Paged scans, so memory stays flat however large the ledger.

import type { ScanPage } from './maintenance-store.ts';
import type { TurnRecord } from './records.ts';

/** A stored turn with its parent's stored hash and place, and its cited events. */
export interface HashedTurnRow {
  turn: TurnRecord;
  /** The parent's stored hash (null for a line's first turn, or a parent with none). */
  parentHash: string | null;
  /** False when `turn.parentTurnId` names no stored turn. */
  parentFound: boolean;
  /** The parent's session and depth, to check the turn sits right below it (null without a parent). */
  parentSessionId: string | null;
  parentDepth: number | null;
  /** Events the turn cites, sorted. */
  eventIds: string[];
}

/** Sessions by id, paged. */
export interface SessionPage {
  /** Resume after this session id; from the first one when absent. */
  afterId?: string;
  limit: number;
}

/** A session's head and what its own turns say the head should be. */
export interface SessionHeadRow {
  sessionId: string;
  headTurnId: string | null;
  forkedFromTurnId: string | null;
  /** The head turn as stored; null when the session has no head or it names no turn. */
  head: { sessionId: string; depth: number; hash: string | null } | null;
  /** How many turns the session holds itself (a fork's shared prefix is its parent's). */
  ownTurns: number;
  /** The depth of the session's deepest own turn; null when it holds none. */
  deepestOwnDepth: number | null;
}

export interface TurnChainStore {
  /** Every turn with its parent's hash and its cited events, by (sessionId, depth). */
  hashedTurns(page: ScanPage): Promise<HashedTurnRow[]>;
  /** Every session's head with its own turns' extent, by id. */
  sessionHeads(page: SessionPage): Promise<SessionHeadRow[]>;
}
