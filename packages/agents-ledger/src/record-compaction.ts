// Records a compaction that was made elsewhere: a transcript imported from Claude Code, Codex or pi
// already says where its compactions cut and what their summaries read, so no summarizer runs.
// The turn is written by `compact`'s own write path (compaction/write-compaction.ts: same derived
// columns, same pointers, same token accounting) so every reader, doctor and a later `compact`
// cannot tell the difference;
// only the shrink check is left out, because the source decided to compact and we record it.

import {
  assertStorableText,
  type CompactionTrigger,
  type CompactionTurn,
  EmptySessionError,
  HeadConflictError,
  InvalidInputError,
} from '@agent-ledger/core';
import type { StoredTurn } from '@agent-ledger/store';
import { writeCompaction } from './compaction/write-compaction.ts';
import type { LedgerContext } from './ledger-context.ts';
import { rawSegments, readSessionLine } from './line/session-line.ts';
import { readChainRange, requireSessionRow } from './store/chain.ts';
import { turnFromRow } from './store/row-mapping.ts';
import { FLAT } from './strategies/flat/flat-strategy.ts';
import { compactionPercentOf, renderSummaryBlock } from './summary-block.ts';
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

export async function recordCompaction(
  ledger: LedgerContext,
  sessionId: string,
  input: RecordCompactionInput,
): Promise<CompactionTurn> {
  if (typeof input.summary !== 'string') throw new InvalidInputError('summary must be a string.', 'summary');
  assertStorableText(input.summary, 'summary');
  if (input.summarizedThroughTurnId === undefined && !input.firstKeptTurnId) {
    throw new InvalidInputError(
      'Name summarizedThroughTurnId or firstKeptTurnId: where the compaction cuts.',
      'summarizedThroughTurnId',
    );
  }
  const timestamp = validateTimestamp(input.timestamp);
  const metadata = validateMetadata(input.metadata);
  const { store } = ledger;
  const session = await requireSessionRow(store, sessionId);
  if (!session.headTurnId) throw new EmptySessionError(sessionId);
  if (input.expectedHeadTurnId !== undefined && input.expectedHeadTurnId !== session.headTurnId) {
    throw new HeadConflictError(sessionId, input.expectedHeadTurnId, session.headTurnId);
  }
  const line = await readSessionLine(store, session.headTurnId, { view: session });
  const { turn: head, compaction: previous, rawStartDepth: fromDepth } = line;
  // The window a compaction may cut: the normal turns the context holds raw right now, read page
  // by page (an imported session can have tens of thousands of them since its last compaction).
  const cut = await locateCut(readChainRange(store, rawSegments(line)), input);
  const { through, firstKept } = cut;
  const id = ledger.generateId('turn');
  const sourceTokens = cut.summarizedTokens + (previous?.tokenCount ?? 0);
  const fullMetadata: Record<string, unknown> = {
    ...metadata,
    summarizerCalls: 0,
    compacts: cut.summarizedTurns + (previous ? 1 : 0),
    sourceTokens,
    compactionPercent: compactionPercentOf(ledger.tokenCounter.countText(input.summary), sourceTokens),
    windowTurns: cut.windowTurns,
  };
  const tokenCount = ledger.tokenCounter.countText(
    renderSummaryBlock({
      id,
      summary: input.summary,
      summarizedThroughTurnId: through.id,
      strategy: FLAT,
      metadata: fullMetadata,
    }),
  );
  const record = await writeCompaction(ledger, {
    sessionId,
    id,
    plannedHead: head,
    previous,
    // The caller named the head it saw, or the cut reaches the head: then the head may not move.
    allowLaterTurns: input.expectedHeadTurnId === undefined && firstKept !== null,
    through,
    firstKept,
    tokenCount,
    mustShrink: false,
    summary: input.summary,
    strategy: FLAT,
    summarizer: input.summarizer ?? 'recorded',
    trigger: input.trigger ?? 'manual',
    usage: { inputTokens: 0, outputTokens: 0 },
    timestamp: timestamp ?? ledger.now(),
    coversFromDepth: previous ? (previous.firstKeptTurnId ? fromDepth : previous.depth) : 0,
    metadata: fullMetadata,
  });
  return turnFromRow({ ...record, hasChildren: false }) as CompactionTurn;
}

interface Cut {
  through: StoredTurn;
  firstKept: StoredTurn | null;
  /** Normal turns up to and including `through`, and their tokens. */
  summarizedTurns: number;
  summarizedTokens: number;
  windowTurns: number;
}

/**
 * Finds the cut in the window's pages, holding one page at a time; refuses pointers outside the
 * window, a firstKeptTurnId that is not right after summarizedThroughTurnId, and a cut that
 * summarizes nothing or would leave turns out of every context.
 */
async function locateCut(pages: AsyncIterable<StoredTurn[]>, input: RecordCompactionInput): Promise<Cut> {
  const throughId = input.summarizedThroughTurnId;
  const keptId = input.firstKeptTurnId ?? undefined;
  let index = 0;
  let tokens = 0;
  let previous: { row: StoredTurn; tokens: number } | null = null;
  let through: { row: StoredTurn; index: number; tokens: number } | null = null;
  let kept: { row: StoredTurn; index: number } | null = null;
  let afterThrough: StoredTurn | null = null;
  for await (const page of pages) {
    for (const row of page) {
      if (row.turnType !== 'normal') continue;
      tokens += row.tokenCount;
      if (through && through.index === index - 1) afterThrough = row;
      if (row.id === throughId) through = { row, index, tokens };
      if (row.id === keptId) {
        kept = { row, index };
        if (throughId === undefined && previous) through = { row: previous.row, index: index - 1, tokens: previous.tokens };
      }
      previous = { row, tokens };
      index += 1;
    }
  }
  const outside = (field: string, turnId: string) =>
    new InvalidInputError(
      `${field} ${turnId} is not a normal turn on the session's line since its previous compaction; nothing was written.`,
      field,
    );
  if (throughId !== undefined && !through) throw outside('summarizedThroughTurnId', throughId);
  if (keptId !== undefined && !kept) throw outside('firstKeptTurnId', keptId);
  if (!through) {
    throw new InvalidInputError(
      `firstKeptTurnId ${keptId} is the first raw turn: the compaction would summarize nothing.`,
      'firstKeptTurnId',
    );
  }
  if (kept && kept.index !== through.index + 1) {
    throw new InvalidInputError(
      `firstKeptTurnId ${keptId} must be the turn right after summarizedThroughTurnId ${through.row.id}.`,
      'firstKeptTurnId',
    );
  }
  if (input.firstKeptTurnId === null && afterThrough) {
    throw new InvalidInputError(
      'firstKeptTurnId is null but turns follow summarizedThroughTurnId: they would drop out of every context.',
      'firstKeptTurnId',
    );
  }
  return {
    through: through.row,
    firstKept: kept?.row ?? afterThrough,
    summarizedTurns: through.index + 1,
    summarizedTokens: through.tokens,
    windowTurns: index,
  };
}
