// The one write path of a compaction turn, for `compact` (a strategy planned it) and
// `recordCompaction` (a transcript said where it cut): read the head, plan the turn's row with
// every derived column (planTurnRecord), then one transaction appends it with a compare-and-set of
// that head and lets the strategy write its own state. A turn appended meanwhile stays raw after the
// compaction (the row is planned again on the new head, no summarizer involved); a compaction that
// landed meanwhile, or a head that may not move, is a HeadConflictError and nothing is written.

import {
  type CompactionTrigger,
  CompactionWouldNotShrinkError,
  HeadConflictError,
  type SummarizerUsage,
  toStorableText,
} from '@agent-ledger/core';
import type { SessionRecord, StoredTurn, StoreOperations, TurnRecord } from '@agent-ledger/store';
import { planTurnRecord } from '../append-turn.ts';
import { contextTokensAt, effectiveCompaction } from '../chain-arithmetic.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { requireSessionRow, requireTurnRow } from '../store/chain.ts';

export interface CompactionWrite {
  sessionId: string;
  id: string;
  /** The head the compaction was planned on. */
  plannedHead: StoredTurn;
  /**
   * The session row and context size the plan read with `plannedHead`: the first attempt writes on
   * them with no read (the compare-and-set on the head catches anything that moved); a retry reads
   * the line again. Without them, every attempt reads first.
   */
  planned?: { session: SessionRecord; tokensBefore: number };
  /** The compaction the plan started from: if another is effective by write time, HeadConflictError. */
  previous: StoredTurn | null;
  /** May turns appended after `plannedHead` stay raw after the compaction? (never when no turn is kept) */
  allowLaterTurns: boolean;
  through: StoredTurn;
  firstKept: StoredTurn | null;
  /** Tokens of the compaction turn as a context shows it. */
  tokenCount: number;
  /** Refuse a compaction whose context is not smaller than the one it replaces. */
  mustShrink: boolean;
  summary: string;
  strategy: string;
  summarizer: string;
  trigger: CompactionTrigger;
  usage: SummarizerUsage;
  timestamp: number;
  coversFromDepth: number;
  metadata: Record<string, unknown>;
  /** The strategy's own rows, written in the same transaction (every write through `tx`). */
  persist?: (tx: StoreOperations, compaction: TurnRecord) => Promise<void>;
}

/** Rounds of "a turn arrived while we planned the row" before giving up with HeadConflictError. */
const ATTEMPTS = 8;

export function writeCompaction(ledger: LedgerContext, write: CompactionWrite): Promise<TurnRecord> {
  // In this process's queue for the session, behind (and ahead of) its appends: the head cache
  // they plan on then moves to the compaction with it.
  return ledger.appendQueue.run(write.sessionId, () => writeWithRetry(ledger, write));
}

async function writeWithRetry(ledger: LedgerContext, write: CompactionWrite): Promise<TurnRecord> {
  const { store } = ledger;
  const { sessionId, plannedHead } = write;
  let head: StoredTurn | null = plannedHead;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const onPlan = attempt === 0 && write.planned !== undefined;
    const current = write.planned && onPlan ? { ...write.planned, head: plannedHead } : await currentLine(store, write);
    const { session, tokensBefore } = current;
    head = current.head;
    const keptRaw = write.firstKept
      ? head.cumulativeTokens - write.firstKept.cumulativeTokens + write.firstKept.tokenCount
      : head.cumulativeTokens - write.through.cumulativeTokens;
    const tokensAfter = write.tokenCount + keptRaw;
    if (write.mustShrink && tokensAfter >= tokensBefore)
      throw new CompactionWouldNotShrinkError(sessionId, tokensBefore, tokensAfter);
    const record = planTurnRecord(ledger, sessionId, head, {
      id: write.id,
      turnType: 'compaction',
      role: null,
      content: null,
      tokenCount: write.tokenCount,
      timestamp: write.timestamp,
      // A model's words: one half of an emoji must not cost the whole compaction.
      summary: toStorableText(write.summary),
      summarizedThroughTurnId: write.through.id,
      firstKeptTurnId: write.firstKept?.id ?? null,
      tokensBefore,
      tokensAfter,
      trigger: write.trigger,
      strategy: write.strategy,
      summarizer: write.summarizer,
      usageInputTokens: write.usage.inputTokens,
      usageOutputTokens: write.usage.outputTokens,
      previousCompactionId: write.previous?.id ?? null,
      coversFromDepth: write.coversFromDepth,
      summarizedThroughDepth: write.through.depth,
      metadata: write.metadata,
    });
    const expected = head.id;
    const written = await store.transaction(async (tx) => {
      const outcome = await tx.appendToSession({ sessionId, expectedHeadTurnId: expected, turns: [record] });
      if (!outcome.written) return false;
      await write.persist?.(tx, record);
      return true;
    });
    if (written) {
      // A session row read before the summarizer ran may be stale (a calibration since): the next
      // append reads it again rather than plan on it.
      if (onPlan) ledger.heads.forget(sessionId);
      else ledger.heads.remember(sessionId, { session: { ...session, headTurnId: record.id }, head: record });
      return record;
    }
    ledger.heads.forget(sessionId);
  }
  throw new HeadConflictError(sessionId, plannedHead.id, head?.id ?? null);
}

/**
 * The session's head as stored now, checked against the plan: it may have gained turns (they stay raw
 * after the compaction, when the plan keeps any), but not lost any or gained another compaction.
 */
async function currentLine(
  store: StoreOperations,
  write: CompactionWrite,
): Promise<{ session: SessionRecord; head: StoredTurn; tokensBefore: number }> {
  const { sessionId, plannedHead } = write;
  const session = await requireSessionRow(store, sessionId);
  const head = session.headTurnId ? await requireTurnRow(store, session.headTurnId) : null;
  const moved = head?.id !== plannedHead.id;
  if (
    !head ||
    head.depth < plannedHead.depth ||
    (moved && !write.allowLaterTurns) ||
    (await effectiveCompaction(store, head, session))?.id !== write.previous?.id
  ) {
    throw new HeadConflictError(sessionId, plannedHead.id, head?.id ?? null);
  }
  return { session, head, tokensBefore: await contextTokensAt(store, head, session) };
}
