// Compaction as a turn. The strategy plans and summarizes outside any transaction (a model call
// can take seconds); the compaction turn is then written in one transaction that first checks the
// session has not been compacted meanwhile. A failure at any step writes nothing.

import {
  type CompactionTrigger,
  type CompactionTurn,
  CompactionWouldNotShrinkError,
  EmptySessionError,
  HeadConflictError,
  InvalidInputError,
  type NormalTurn,
  type SessionSettings,
  type Turn,
} from '@nexus/core';
import type { LedgerDrizzle } from '@nexus/db';
import { insertTurnAfter } from './append-turn.ts';
import { contextTokensAt, effectiveCompaction, rawStartDepth } from './build-context.ts';
import type { CompactionPlan } from './compaction/compaction-strategy.ts';
import type { LedgerContext } from './ledger-context.ts';
import { chainSegments, clipSegments, readChainRange, requireSessionRow, requireTurnRow } from './store/chain.ts';
import { sessionFromRow, turnFromRow } from './store/row-mapping.ts';
import { readTurnRowsById } from './store/turns-by-id.ts';
import { renderSummaryBlock } from './summary-block.ts';
import { forestToExtend } from './topics/forest-access.ts';
import { writeForest } from './topics/forest-store.ts';
import { compactionPercentOf } from './topics/render-topics.ts';
import { activeDrops } from './topics/topic-drops.ts';
import { requireStrategy, validateTimestamp } from './validate-input.ts';

export interface CompactOptions {
  trigger?: CompactionTrigger;
  /** What the summary must keep ("keep the schema decisions"). */
  instructions?: string;
  /** Strategy name; the ledger's default otherwise. */
  strategy?: string;
  /** Size limit for the summary; by default half the room compaction leaves (see docs/compaction.md). */
  summaryTokens?: number;
  /** When the compaction happened, in ms since the epoch; the ledger's clock by default (a replay passes the replayed time). */
  timestamp?: number;
  /**
   * This turn and every turn after it stay raw, whatever the cut would say: a runtime recovering
   * from an overflow keeps the message it is answering. NothingToCompactError when nothing before it can go.
   */
  keepFromTurnId?: string;
}

/**
 * Half of what is left of the usable window once the kept turns are in: the other half is room for
 * the conversation to grow before the next compaction, so compactions cannot follow each other on
 * every turn.
 */
export function defaultSummaryTokens(settings: SessionSettings): number {
  const room = settings.contextWindow - settings.reserveTokens - settings.keepRecentTokens;
  return Math.max(32, Math.min(4000, Math.floor(room / 2)));
}

export interface ContextUsage {
  contextTokens: number;
  /** contextWindow - reserveTokens: above this, the session should compact. */
  limit: number;
  shouldCompact: boolean;
}

export function contextUsage(ledger: LedgerContext, sessionId: string): ContextUsage {
  const db = ledger.database.db;
  const session = requireSessionRow(db, sessionId);
  const limit = session.contextWindow - session.reserveTokens;
  if (!session.headTurnId) return { contextTokens: 0, limit, shouldCompact: false };
  const contextTokens = contextTokensAt(db, requireTurnRow(db, session.headTurnId), session);
  return { contextTokens, limit, shouldCompact: contextTokens > limit };
}

export async function compact(ledger: LedgerContext, sessionId: string, options: CompactOptions = {}): Promise<CompactionTurn> {
  const db = ledger.database.db;
  const timestamp = validateTimestamp(options.timestamp);
  const session = requireSessionRow(db, sessionId);
  if (!session.headTurnId) throw new EmptySessionError(sessionId);
  // The cut skips a keepFromTurnId it does not find in the window; one that names no turn at all
  // is a mistake, refused before the summarizer is asked anything.
  if (options.keepFromTurnId !== undefined) requireTurnRow(db, options.keepFromTurnId);
  const strategy = requireStrategy(ledger, options.strategy ?? session.compactionStrategy ?? ledger.defaultStrategy);
  const head = requireTurnRow(db, session.headTurnId);
  const previous = effectiveCompaction(db, head, session);
  const fromDepth = previous ? rawStartDepth(db, previous) : 0;
  const window = [...readChainRange(db, clipSegments(chainSegments(db, head), fromDepth, head.depth))]
    .flat()
    .filter((row) => row.turnType === 'normal')
    .map((row) => turnFromRow(row) as NormalTurn);
  const settings = sessionFromRow(session).settings;
  const summaryTokens = options.summaryTokens ?? defaultSummaryTokens(settings);

  const forestBase = previous?.strategy === 'union-find' ? previous.id : null;
  const plan = await strategy.plan({
    sessionId,
    previous: previous ? (turnFromRow(previous) as CompactionTurn) : null,
    window,
    settings,
    trigger: options.trigger ?? 'manual',
    instructions: options.instructions,
    keepFromTurnId: options.keepFromTurnId,
    summaryTokens,
    summarizer: ledger.summarizer,
    tokenCounter: ledger.tokenCounter,
    loadForest: () => forestToExtend(ledger, forestBase, activeDrops(db, sessionId)),
    readTurns: (ids) => readTurnsById(db, ids),
  });
  const windowIds = window.map((turn) => turn.id);
  const throughIndex = windowIds.indexOf(plan.summarizedThroughTurnId);
  const keptIndex = plan.firstKeptTurnId === null ? window.length : windowIds.indexOf(plan.firstKeptTurnId);
  if (throughIndex < 0 || keptIndex !== throughIndex + 1) {
    throw new InvalidInputError(`Strategy ${strategy.name} returned a cut outside the window; nothing was written.`, 'strategy');
  }

  const row = ledger.database.transaction((tx) => {
    const current = requireSessionRow(tx, sessionId);
    const currentHead = current.headTurnId ? requireTurnRow(tx, current.headTurnId) : null;
    // New turns may have arrived while the summarizer ran (they stay raw); a compaction may not.
    if (!currentHead || currentHead.depth < head.depth || effectiveCompaction(tx, currentHead, current)?.id !== previous?.id) {
      throw new HeadConflictError(sessionId, head.id, currentHead?.id ?? null);
    }
    const id = ledger.generateId('turn');
    const through = requireTurnRow(tx, plan.summarizedThroughTurnId);
    const sources = plan.sources ?? {
      count: throughIndex + 1 + (previous ? 1 : 0),
      tokens: window.slice(0, throughIndex + 1).reduce((total, turn) => total + turn.tokenCount, previous?.tokenCount ?? 0),
    };
    const metadata = compactionMetadata(ledger, plan, sources, { summaryTokens, windowTurns: window.length });
    const tokenCount = ledger.tokenCounter.countText(
      renderSummaryBlock({ id, summary: plan.summary, summarizedThroughTurnId: through.id, strategy: strategy.name, metadata }),
    );
    const tokensBefore = contextTokensAt(tx, currentHead, current);
    const keptRaw = plan.firstKeptTurnId
      ? (() => {
          const firstKept = requireTurnRow(tx, plan.firstKeptTurnId);
          return currentHead.cumulativeTokens - firstKept.cumulativeTokens + firstKept.tokenCount;
        })()
      : currentHead.cumulativeTokens - through.cumulativeTokens;
    const tokensAfter = tokenCount + keptRaw;
    if (tokensAfter >= tokensBefore) throw new CompactionWouldNotShrinkError(sessionId, tokensBefore, tokensAfter);
    const inserted = insertTurnAfter(ledger, tx, sessionId, currentHead, {
      id,
      turnType: 'compaction',
      role: null,
      content: null,
      tokenCount,
      timestamp: timestamp ?? ledger.now(),
      summary: plan.summary,
      summarizedThroughTurnId: through.id,
      firstKeptTurnId: plan.firstKeptTurnId,
      tokensBefore,
      tokensAfter,
      trigger: options.trigger ?? 'manual',
      strategy: strategy.name,
      summarizer: plan.summarizer,
      usageInputTokens: plan.usage.inputTokens,
      usageOutputTokens: plan.usage.outputTokens,
      previousCompactionId: previous?.id ?? null,
      coversFromDepth: previous ? (previous.firstKeptTurnId ? fromDepth : previous.depth) : 0,
      summarizedThroughDepth: through.depth,
      metadata,
    });
    if (plan.forest) {
      const { forest, previousCompactionId, seedCompactionId, topics } = plan.forest;
      writeForest(tx, { compactionId: id, sessionId, previousCompactionId, seedCompactionId, forest, topics });
    }
    return inserted;
  });
  if (plan.forest) ledger.forests.set(row.id, plan.forest.forest);
  return turnFromRow(row) as CompactionTurn;
}

/** What a compaction turn records beside its summary: its size policy, cost and provenance counts. */
function compactionMetadata(
  ledger: LedgerContext,
  plan: CompactionPlan,
  sources: { count: number; tokens: number },
  base: Record<string, number>,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    ...base,
    summarizerCalls: plan.summarizerCalls ?? 1,
    compacts: sources.count,
    sourceTokens: sources.tokens,
    compactionPercent: compactionPercentOf(ledger.tokenCounter.countText(plan.summary), sources.tokens),
  };
  if (plan.calls) metadata.calls = plan.calls;
  if (plan.forest) {
    const live = plan.forest.topics.filter((topic) => !topic.cluster.dropped);
    metadata.topics = live.map(({ cluster }) => ({
      id: cluster.id,
      summaryVersion: cluster.summaryVersion,
      members: cluster.members,
    }));
    if (plan.forest.failedClusterIds.length > 0) metadata.unsummarizedTopics = plan.forest.failedClusterIds;
  }
  return metadata;
}

function readTurnsById(db: LedgerDrizzle, ids: readonly string[]): Map<string, Turn> {
  return new Map([...readTurnRowsById(db, ids)].map(([id, row]) => [id, turnFromRow(row)]));
}
