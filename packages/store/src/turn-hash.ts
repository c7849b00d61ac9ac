// The turns' hash chain. Each turn's hash covers its parent's hash and every field a reader is told
// (role, content, metadata, type, compaction pointers, the events it cites), so changing a stored
// turn, removing one from the middle of a line or relinking it elsewhere breaks every later link.
// Forks share their prefix's hashes: a fork's first turn links to the fork point's hash. What a
// chain cannot show is its own end cut off: a checkpoint of each session's head records that.
// Derived columns (latest compaction, cumulative tokens, search text) are left out: they are
// recomputed from the hashed fields, and doctor checks them against those.

import { hash } from 'node:crypto';
import { canonicalJson } from '@agent-ledger/core';
import type { TurnRecord } from './records.ts';
import type { HashedTurnRow } from './turn-chain-store.ts';

/** Bumped if the hashed text ever changes, so a verifier knows which rule a hash was made by. */
export const TURN_HASH_VERSION = 1;

export interface TurnHashInput {
  turn: Omit<TurnRecord, 'hash' | 'latestCompactionId' | 'cumulativeTokens' | 'searchText'>;
  /** The parent turn's hash; null for a line's first turn. */
  parentHash: string | null;
  /** Events the turn cites, in any order (a turn cites a set). */
  eventIds: readonly string[];
}

export function turnHash({ turn, parentHash, eventIds }: TurnHashInput): string {
  const hashed = {
    v: TURN_HASH_VERSION,
    parentHash,
    id: turn.id,
    sessionId: turn.sessionId,
    parentTurnId: turn.parentTurnId,
    depth: turn.depth,
    role: turn.role,
    content: turn.content,
    model: turn.model,
    tokenCount: turn.tokenCount,
    timestamp: turn.timestamp,
    toolCallCount: turn.toolCallCount,
    metadata: turn.metadata,
    turnType: turn.turnType,
    summary: turn.summary,
    summarizedThroughTurnId: turn.summarizedThroughTurnId,
    firstKeptTurnId: turn.firstKeptTurnId,
    tokensBefore: turn.tokensBefore,
    tokensAfter: turn.tokensAfter,
    trigger: turn.trigger,
    strategy: turn.strategy,
    summarizer: turn.summarizer,
    usageInputTokens: turn.usageInputTokens,
    usageOutputTokens: turn.usageOutputTokens,
    coversFromDepth: turn.coversFromDepth,
    previousCompactionId: turn.previousCompactionId,
    summarizedThroughDepth: turn.summarizedThroughDepth,
    eventIds: eventIds.length < 2 ? eventIds : [...new Set(eventIds)].sort(),
  };
  return hash('sha256', canonicalJson(hashed, 'turn'), 'hex');
}

/**
 * The hashes of `rows` (each read with its parent's stored hash), made in `order` (parents before
 * children): what filling in a migrated ledger's hashes computes, a chunk at a time. A parent hashed
 * earlier in the same chunk has no stored hash yet, so its new one is used.
 */
export function hashesInOrder(rows: readonly HashedTurnRow[], order: readonly string[]): Array<{ id: string; hash: string }> {
  const byId = new Map(rows.map((row) => [row.turn.id, row]));
  const made = new Map<string, string>();
  const hashes: Array<{ id: string; hash: string }> = [];
  for (const id of order) {
    const row = byId.get(id);
    if (!row) continue;
    const { turn, parentHash, eventIds } = row;
    const parent = turn.parentTurnId === null ? null : (made.get(turn.parentTurnId) ?? parentHash);
    const value = turnHash({ turn, parentHash: parent, eventIds });
    made.set(id, value);
    hashes.push({ id, hash: value });
  }
  return hashes;
}
