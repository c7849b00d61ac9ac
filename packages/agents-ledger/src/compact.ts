// Compaction as a turn. The window (and the strategy's own state) is read once; the strategy plans
// and summarizes outside any transaction (a model call can take seconds) with no store I/O; the
// compaction turn and the strategy's state are then written in one transaction, compare-and-set on
// the head (compaction/write-compaction.ts, shared with recordCompaction). A compaction that landed
// meanwhile is a HeadConflictError; a failure at any step writes nothing.

import {
  type CompactionTrigger,
  type CompactionTurn,
  EmptySessionError,
  type NormalTurn,
  type SessionSettings,
} from '@agent-ledger/core';
import { contextTokensAt, effectiveCompaction } from './chain-arithmetic.ts';
import { withCompactionLease } from './compaction/compaction-lease.ts';
import { planCompactionRow } from './compaction/plan-compaction.ts';
import { writeCompaction } from './compaction/write-compaction.ts';
import { type LedgerContext, strategyEnvironment } from './ledger-context.ts';
import { lineContextTokens, rawSegments, readSessionLine } from './line/session-line.ts';
import { readChain, requireSessionRow, requireTurnRow } from './store/chain.ts';
import { sessionFromRow, turnFromRow } from './store/row-mapping.ts';
import type { StrategyEnvironment } from './strategies/compaction-strategy.ts';
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
 * Holding the session's compaction lease (one compactor per session, across processes), reads the
 * line once (and the strategy's own state), lets the strategy plan with no store I/O, plans the row
 * with no I/O (compaction/plan-compaction.ts), then writes the compaction turn and the strategy's
 * state in one transaction. A call that waited for another process's compaction returns that one.
 */
export async function compact(ledger: LedgerContext, sessionId: string, options: CompactOptions = {}): Promise<CompactionTurn> {
  const timestamp = validateTimestamp(options.timestamp);
  // The compaction the session's context starts from now: a newer one that lands while this waits
  // for another process's compaction is the one this call wanted (compaction/compaction-lease.ts).
  const seen = await currentCompaction(ledger, sessionId);
  const newer = async () => {
    const now = await currentCompaction(ledger, sessionId);
    return now && now.id !== seen?.id ? (turnFromRow(now) as CompactionTurn) : null;
  };
  const outcome = await withCompactionLease(
    ledger.store,
    sessionId,
    { leaseMs: ledger.compactionLeaseMs, landed: newer },
    async () => {
      const line = await readCompactionLine(ledger, sessionId, options);
      // Landed between that look and the lease: nothing left for this call to summarize.
      if (line.previous && line.previous.id !== seen?.id) return line.previousTurn as CompactionTurn;
      return compactOnLine(ledger, line, { ...options, timestamp });
    },
  );
  return outcome.ran ? outcome.value : outcome.landed;
}

/** The effective compaction at the session's head, or null; an empty session is EmptySessionError. */
async function currentCompaction(ledger: LedgerContext, sessionId: string) {
  const session = await requireSessionRow(ledger.store, sessionId);
  if (!session.headTurnId) throw new EmptySessionError(sessionId);
  return effectiveCompaction(ledger.store, await requireTurnRow(ledger.store, session.headTurnId), session);
}

type CompactionLine = Awaited<ReturnType<typeof readCompactionLine>>;

/** The compaction planned on `line` and written, the lease held. */
async function compactOnLine(
  ledger: LedgerContext,
  line: CompactionLine,
  options: CompactOptions & { timestamp: number | undefined },
): Promise<CompactionTurn> {
  const { timestamp } = options;
  const sessionId = line.session.id;
  const { strategy, previousTurn, window } = line;
  const settings = sessionFromRow(line.session).settings;
  const summaryTokens = options.summaryTokens ?? defaultSummaryTokens(settings);
  const environment: StrategyEnvironment = strategyEnvironment(ledger);
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
  const row = planCompactionRow({
    sessionId,
    id: ledger.generateId('turn'),
    head: line.head,
    previous: line.previous,
    fromDepth: line.fromDepth,
    windowRows: line.windowRows,
    plan,
    strategy,
    summaryTokens,
    trigger: options.trigger ?? 'manual',
    timestamp: timestamp ?? ledger.now(),
    tokenCounter: ledger.tokenCounter,
  });
  const planState = plan.state;
  const record = await writeCompaction(ledger, {
    ...row,
    planned: { session: line.session, tokensBefore: line.tokensBefore },
    ...(strategy.persist && planState !== undefined
      ? { persist: (tx, compaction) => strategy.persist?.(tx, compaction, planState) ?? Promise.resolve() }
      : {}),
  });
  if (planState !== undefined) strategy.committed?.(environment, record, planState);
  return turnFromRow({ ...record, hasChildren: false }) as CompactionTurn;
}

/** The line a compaction plans on: the session, its head, the compaction it starts from, the window. */
async function readCompactionLine(ledger: LedgerContext, sessionId: string, options: CompactOptions) {
  const { store } = ledger;
  const session = await requireSessionRow(store, sessionId);
  if (!session.headTurnId) throw new EmptySessionError(sessionId);
  // The cut skips a keepFromTurnId it does not find in the window; one that names no turn at all
  // is a mistake, refused before the summarizer is asked anything.
  if (options.keepFromTurnId !== undefined) await requireTurnRow(store, options.keepFromTurnId);
  const strategy = requireStrategy(ledger, options.strategy ?? session.compactionStrategy ?? ledger.defaultStrategy);
  const line = await readSessionLine(store, session.headTurnId, { view: session });
  const windowRows = (await readChain(store, rawSegments(line))).filter((row) => row.turnType === 'normal');
  return {
    session,
    strategy,
    head: line.turn,
    previous: line.compaction,
    previousTurn: line.compaction ? (turnFromRow(line.compaction) as CompactionTurn) : null,
    fromDepth: line.rawStartDepth,
    tokensBefore: lineContextTokens(line),
    windowRows,
    window: windowRows.map((row) => turnFromRow(row) as NormalTurn),
  };
}
