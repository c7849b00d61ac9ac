// Records a compaction that was made elsewhere: a transcript imported from Claude Code, Codex or pi
// already says where its compactions cut and what their summaries read, so no summarizer runs.
// The turn is written exactly as `compact` writes one (same derived columns, same pointers, same
// token accounting) so every reader, doctor and a later `compact` cannot tell the difference;
// only the shrink check is left out, because the source decided to compact and we record it.

import {
  type CompactionTrigger,
  type CompactionTurn,
  EmptySessionError,
  HeadConflictError,
  InvalidInputError,
} from '@nexus/core';
import type { AgentTurnRow } from '@nexus/db';
import { insertTurnAfter } from './append-turn.ts';
import { contextTokensAt, effectiveCompaction, rawStartDepth } from './build-context.ts';
import type { LedgerContext } from './ledger-context.ts';
import { chainSegments, clipSegments, readChainRange, requireSessionRow, requireTurnRow } from './store/chain.ts';
import { turnFromRow } from './store/row-mapping.ts';
import { renderSummaryBlock } from './summary-block.ts';
import { compactionPercentOf } from './topics/render-topics.ts';
import { validateMetadata, validateTimestamp } from './validate-input.ts';

export interface RecordCompactionInput {
  summary: string;
  /**
   * The last turn the summary covers. Omitted: the normal turn just before `firstKeptTurnId`.
   * Either pointer must name a normal turn on the session's line since its previous compaction.
   */
  summarizedThroughTurnId?: string;
  /**
   * Where raw turns resume: the normal turn right after `summarizedThroughTurnId`. Omitted: that
   * turn, or null when the summary covers every turn up to the head.
   */
  firstKeptTurnId?: string | null;
  trigger?: CompactionTrigger;
  /** Who wrote the summary (`claude-code`, `codex`, `pi`…); stored as the compaction's summarizer. */
  summarizer?: string;
  /** Milliseconds since the epoch; the ledger's clock by default. */
  timestamp?: number;
  /** Kept beside the ledger's own provenance counts (the source's token figures, say). */
  metadata?: Record<string, unknown>;
  /** The head the caller last saw; a moved head fails with HeadConflictError. */
  expectedHeadTurnId?: string;
}

export function recordCompaction(ledger: LedgerContext, sessionId: string, input: RecordCompactionInput): CompactionTurn {
  if (typeof input.summary !== 'string') throw new InvalidInputError('summary must be a string.', 'summary');
  if (input.summarizedThroughTurnId === undefined && !input.firstKeptTurnId) {
    throw new InvalidInputError(
      'Name summarizedThroughTurnId or firstKeptTurnId: where the compaction cuts.',
      'summarizedThroughTurnId',
    );
  }
  const timestamp = validateTimestamp(input.timestamp);
  const metadata = validateMetadata(input.metadata);
  const row = ledger.database.transaction((tx) => {
    const session = requireSessionRow(tx, sessionId);
    if (!session.headTurnId) throw new EmptySessionError(sessionId);
    const head = requireTurnRow(tx, session.headTurnId);
    if (input.expectedHeadTurnId !== undefined && input.expectedHeadTurnId !== head.id) {
      throw new HeadConflictError(sessionId, input.expectedHeadTurnId, head.id);
    }
    const previous = effectiveCompaction(tx, head, session);
    const fromDepth = previous ? rawStartDepth(tx, previous) : 0;
    // The window a compaction may cut: the normal turns the context holds raw right now.
    const window = [...readChainRange(tx, clipSegments(chainSegments(tx, head), fromDepth, head.depth))]
      .flat()
      .filter((turn) => turn.turnType === 'normal');
    const { throughIndex, keptIndex } = locateCut(window, input);
    const through = window[throughIndex] as AgentTurnRow;
    const firstKept = window[keptIndex] ?? null;
    const id = ledger.generateId('turn');
    const summarized = window.slice(0, throughIndex + 1);
    const sourceTokens = summarized.reduce((total, turn) => total + turn.tokenCount, previous?.tokenCount ?? 0);
    const fullMetadata: Record<string, unknown> = {
      ...metadata,
      summarizerCalls: 0,
      compacts: summarized.length + (previous ? 1 : 0),
      sourceTokens,
      compactionPercent: compactionPercentOf(ledger.tokenCounter.countText(input.summary), sourceTokens),
      windowTurns: window.length,
    };
    const tokenCount = ledger.tokenCounter.countText(
      renderSummaryBlock({
        id,
        summary: input.summary,
        summarizedThroughTurnId: through.id,
        strategy: 'flat',
        metadata: fullMetadata,
      }),
    );
    const tokensBefore = contextTokensAt(tx, head, session);
    const keptRaw = firstKept ? head.cumulativeTokens - firstKept.cumulativeTokens + firstKept.tokenCount : 0;
    return insertTurnAfter(ledger, tx, sessionId, head, {
      id,
      turnType: 'compaction',
      role: null,
      content: null,
      tokenCount,
      timestamp: timestamp ?? ledger.now(),
      summary: input.summary,
      summarizedThroughTurnId: through.id,
      firstKeptTurnId: firstKept?.id ?? null,
      tokensBefore,
      tokensAfter: tokenCount + keptRaw,
      trigger: input.trigger ?? 'manual',
      strategy: 'flat',
      summarizer: input.summarizer ?? 'recorded',
      usageInputTokens: 0,
      usageOutputTokens: 0,
      previousCompactionId: previous?.id ?? null,
      coversFromDepth: previous ? (previous.firstKeptTurnId ? fromDepth : previous.depth) : 0,
      summarizedThroughDepth: through.depth,
      metadata: fullMetadata,
    });
  });
  return turnFromRow(row) as CompactionTurn;
}

/** Index of the last summarized and first kept turn in the window; refuses pointers outside it. */
function locateCut(window: readonly AgentTurnRow[], input: RecordCompactionInput): { throughIndex: number; keptIndex: number } {
  const indexOf = (turnId: string, field: string) => {
    const index = window.findIndex((turn) => turn.id === turnId);
    if (index < 0) {
      throw new InvalidInputError(
        `${field} ${turnId} is not a normal turn on the session's line since its previous compaction; nothing was written.`,
        field,
      );
    }
    return index;
  };
  if (input.summarizedThroughTurnId !== undefined) {
    const throughIndex = indexOf(input.summarizedThroughTurnId, 'summarizedThroughTurnId');
    if (input.firstKeptTurnId && indexOf(input.firstKeptTurnId, 'firstKeptTurnId') !== throughIndex + 1) {
      throw new InvalidInputError(
        `firstKeptTurnId ${input.firstKeptTurnId} must be the turn right after summarizedThroughTurnId ${input.summarizedThroughTurnId}.`,
        'firstKeptTurnId',
      );
    }
    if (input.firstKeptTurnId === null && throughIndex !== window.length - 1) {
      throw new InvalidInputError(
        'firstKeptTurnId is null but turns follow summarizedThroughTurnId: they would drop out of every context.',
        'firstKeptTurnId',
      );
    }
    return { throughIndex, keptIndex: throughIndex + 1 };
  }
  const keptIndex = indexOf(input.firstKeptTurnId as string, 'firstKeptTurnId');
  if (keptIndex === 0) {
    throw new InvalidInputError(
      `firstKeptTurnId ${input.firstKeptTurnId} is the first raw turn: the compaction would summarize nothing.`,
      'firstKeptTurnId',
    );
  }
  return { throughIndex: keptIndex - 1, keptIndex };
}
