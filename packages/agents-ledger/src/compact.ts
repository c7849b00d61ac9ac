// Compaction as a turn. The window (and the strategy's own state) is read once; the strategy plans
// and summarizes outside any transaction (a model call can take seconds) with no store I/O; the
// compaction turn and the strategy's state are then written in one transaction, compare-and-set on
// the head (compaction/write-compaction.ts, shared with recordCompaction). A compaction that landed
// meanwhile is a HeadConflictError; a failure at any step writes nothing.

import {
  type CompactionTrigger,
  type CompactionTurn,
  EmptySessionError,
  InvalidInputError,
  type NormalTurn,
  type SessionSettings,
} from '@agent-ledger/core';
import type { StoredTurn } from '@agent-ledger/store';
import { contextTokensAt, effectiveCompaction, rawStartDepth } from './chain-arithmetic.ts';
import type { CompactionPlan, StrategyEnvironment } from './compaction/compaction-strategy.ts';
import { writeCompaction } from './compaction/write-compaction.ts';
import type { LedgerContext } from './ledger-context.ts';
import { chainSegments, clipSegments, readChain, requireSessionRow, requireTurnRow } from './store/chain.ts';
import { sessionFromRow, turnFromRow } from './store/row-mapping.ts';
import { renderSummaryBlock } from './summary-block.ts';
import { compactionPercentOf } from './topics/render-topics.ts';
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

export async function contextUsage(ledger: LedgerContext, sessionId: string): Promise<ContextUsage> {
  const { store } = ledger;
  const session = await requireSessionRow(store, sessionId);
  const limit = session.contextWindow - session.reserveTokens;
  if (!session.headTurnId) return { contextTokens: 0, limit, shouldCompact: false };
  const contextTokens = await contextTokensAt(store, await requireTurnRow(store, session.headTurnId), session);
  return { contextTokens, limit, shouldCompact: contextTokens > limit };
}

/**
 * Reads the window once (and the strategy's own state), lets the strategy plan with no store I/O,
 * then writes the compaction turn and the strategy's state in one transaction.
 */
export async function compact(ledger: LedgerContext, sessionId: string, options: CompactOptions = {}): Promise<CompactionTurn> {
  const { store } = ledger;
  const timestamp = validateTimestamp(options.timestamp);
  const session = await requireSessionRow(store, sessionId);
  if (!session.headTurnId) throw new EmptySessionError(sessionId);
  // The cut skips a keepFromTurnId it does not find in the window; one that names no turn at all
  // is a mistake, refused before the summarizer is asked anything.
  if (options.keepFromTurnId !== undefined) await requireTurnRow(store, options.keepFromTurnId);
  const strategy = requireStrategy(ledger, options.strategy ?? session.compactionStrategy ?? ledger.defaultStrategy);
  const head = await requireTurnRow(store, session.headTurnId);
  const previous = await effectiveCompaction(store, head, session);
  const fromDepth = previous ? await rawStartDepth(store, previous) : 0;
  const windowRows = (
    await readChain(store, clipSegments(await chainSegments(store, head, session), fromDepth, head.depth))
  ).filter((row) => row.turnType === 'normal');
  const window = windowRows.map((row) => turnFromRow(row) as NormalTurn);
  const settings = sessionFromRow(session).settings;
  const summaryTokens = options.summaryTokens ?? defaultSummaryTokens(settings);
  const previousTurn = previous ? (turnFromRow(previous) as CompactionTurn) : null;
  const environment: StrategyEnvironment = { store, forests: ledger.forests, forestConfig: ledger.forestConfig };
  const state = strategy.loadState
    ? await strategy.loadState(environment, { sessionId, previous: previousTurn, window })
    : undefined;

  const plan = await strategy.plan({
    sessionId,
    previous: previousTurn,
    window,
    settings,
    trigger: options.trigger ?? 'manual',
    instructions: options.instructions,
    keepFromTurnId: options.keepFromTurnId,
    summaryTokens,
    summarizer: ledger.summarizer,
    tokenCounter: ledger.tokenCounter,
    state,
  });
  const windowIds = window.map((turn) => turn.id);
  const throughIndex = windowIds.indexOf(plan.summarizedThroughTurnId);
  const keptIndex = plan.firstKeptTurnId === null ? window.length : windowIds.indexOf(plan.firstKeptTurnId);
  if (throughIndex < 0 || keptIndex !== throughIndex + 1) {
    throw new InvalidInputError(`Strategy ${strategy.name} returned a cut outside the window; nothing was written.`, 'strategy');
  }

  // Both ends of the cut are rows of the window just checked: no second read.
  const through = windowRows[throughIndex] as StoredTurn;
  const firstKept = plan.firstKeptTurnId === null ? null : (windowRows[keptIndex] as StoredTurn);
  const id = ledger.generateId('turn');
  const sources = plan.sources ?? {
    count: throughIndex + 1 + (previous ? 1 : 0),
    tokens: window.slice(0, throughIndex + 1).reduce((total, turn) => total + turn.tokenCount, previous?.tokenCount ?? 0),
  };
  const metadata = compactionMetadata(ledger, plan, sources, { summaryTokens, windowTurns: window.length });
  const tokenCount = ledger.tokenCounter.countText(
    renderSummaryBlock({ id, summary: plan.summary, summarizedThroughTurnId: through.id, strategy: strategy.name, metadata }),
  );
  const planState = plan.state;
  const record = await writeCompaction(ledger, {
    sessionId,
    id,
    plannedHead: head,
    previous,
    allowLaterTurns: firstKept !== null,
    through,
    firstKept,
    tokenCount,
    mustShrink: true,
    summary: plan.summary,
    strategy: strategy.name,
    summarizer: plan.summarizer,
    trigger: options.trigger ?? 'manual',
    usage: plan.usage,
    timestamp: timestamp ?? ledger.now(),
    coversFromDepth: previous ? (previous.firstKeptTurnId ? fromDepth : previous.depth) : 0,
    metadata,
    ...(strategy.persist && planState !== undefined
      ? { persist: (tx, compaction) => strategy.persist?.(tx, compaction, planState) ?? Promise.resolve() }
      : {}),
  });
  if (planState !== undefined) strategy.committed?.(environment, record, planState);
  return turnFromRow({ ...record, hasChildren: false }) as CompactionTurn;
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
  // The strategy's own fields (union-find: its topics) after the ledger's, which they cannot override.
  for (const [key, value] of Object.entries(plan.metadata ?? {})) if (!(key in metadata)) metadata[key] = value;
  return metadata;
}
