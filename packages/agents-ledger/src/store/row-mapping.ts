// Converts between database rows and the domain types of @agent-ledger/core. The only place that knows
// both shapes.

import type { ContentBlock, Session, SessionCalibration, Turn } from '@agent-ledger/core';
import type { SessionRecord, StoredTurn, TurnRecord } from '@agent-ledger/store';
import { FLAT } from '../strategies/flat/flat-strategy.ts';

/**
 * `eventIds` are the events the turn cites; readers that show links pass them (see store/event-links.ts).
 * A row just written (a TurnRecord, no `hasChildren`) has no children yet; `searchText` is not read
 * (a line start's newest rows come without it). Each shape is one object literal, no spread: on
 * Node 20 spreading a row into a literal cost ~6 µs a turn, most of mapping a page of 200 turns.
 */
export function turnFromRow(row: Omit<StoredTurn, 'searchText'> | TurnRecord, eventIds: string[] = []): Turn {
  const hasChildren = 'hasChildren' in row ? row.hasChildren : false;
  const metadata = (row.metadata as Record<string, unknown> | null) ?? null;
  if (row.turnType === 'compaction') {
    return {
      id: row.id,
      sessionId: row.sessionId,
      parentTurnId: row.parentTurnId,
      depth: row.depth,
      timestamp: row.timestamp,
      tokenCount: row.tokenCount,
      hasChildren,
      metadata,
      turnType: 'compaction',
      summary: row.summary ?? '',
      summarizedThroughTurnId: row.summarizedThroughTurnId ?? '',
      firstKeptTurnId: row.firstKeptTurnId,
      tokensBefore: row.tokensBefore ?? 0,
      tokensAfter: row.tokensAfter ?? 0,
      trigger: row.trigger ?? 'manual',
      strategy: row.strategy ?? FLAT,
      summarizer: row.summarizer ?? 'unknown',
      usage: { inputTokens: row.usageInputTokens ?? 0, outputTokens: row.usageOutputTokens ?? 0 },
    };
  }
  return {
    id: row.id,
    sessionId: row.sessionId,
    parentTurnId: row.parentTurnId,
    depth: row.depth,
    timestamp: row.timestamp,
    tokenCount: row.tokenCount,
    hasChildren,
    metadata,
    turnType: 'normal',
    role: row.role ?? 'user',
    content: (row.content as ContentBlock[] | null) ?? [],
    model: row.model,
    toolCallCount: row.toolCallCount,
    eventIds,
  };
}

export function sessionFromRow(row: SessionRecord): Session {
  return {
    id: row.id,
    label: row.label,
    headTurnId: row.headTurnId,
    parentSessionId: row.parentSessionId,
    forkedFromTurnId: row.forkedFromTurnId,
    rebuildFromRaw: row.rebuildFromRaw,
    ignoreCompactionsThroughDepth: row.ignoreCompactionsThroughDepth,
    settings: {
      contextWindow: row.contextWindow,
      reserveTokens: row.reserveTokens,
      keepRecentTokens: row.keepRecentTokens,
    },
    calibration: (row.calibration as SessionCalibration | null) ?? null,
    compactionStrategy: row.compactionStrategy,
    createdAt: row.createdAt,
  };
}
