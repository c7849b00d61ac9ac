// The paper's union-find strategy behind the same seam as flat, both sides of it: the write side
// (read the forest to extend, plan with no I/O in union-find-plan.ts, write the forest with the
// compaction turn) and the read side (topics chosen for a context, the topics header, drops a fork
// inherits, the forest's own checks for doctor). Its caches live with it (union-find-caches.ts).

import type { ForestConfig } from '@agent-ledger/forest';
import { turnFromRow } from '../../store/row-mapping.ts';
import { readTurnRowsById } from '../../store/turns-by-id.ts';
import {
  type CompactionStrategy,
  type ContextSummary,
  type RenderableCompaction,
  STRATEGY_CONTRACT_VERSION,
  type StateRequest,
  type StrategyEnvironment,
  type SummaryRequest,
} from '../compaction-strategy.ts';
import { checkForests } from './check-forests.ts';
import { forestToExtend } from './forest-access.ts';
import { forestWriteRecord } from './forest-store.ts';
import { renderTopicsHeader } from './render-topics.ts';
import { topicContext } from './topic-context.ts';
import { activeDrops, copyDrops } from './topic-drops.ts';
import { createUnionFindCaches, UNION_FIND, type UnionFindCaches, withCaches } from './union-find-caches.ts';
import { planUnionFind, type UnionFindState } from './union-find-plan.ts';

export type { ForestOutcome, UnionFindState } from './union-find-plan.ts';

export interface UnionFindOptions {
  /** Settings for new forests: mergeThreshold (0.15), maxClusters (10), maxCentroidTerms (256). */
  forest?: Partial<ForestConfig>;
}

export function createUnionFindStrategy(options: UnionFindOptions = {}): CompactionStrategy<UnionFindState> {
  const caches = createUnionFindCaches(options.forest);
  const strategy: CompactionStrategy<UnionFindState> = {
    name: UNION_FIND,
    contractVersion: STRATEGY_CONTRACT_VERSION,
    loadState: (environment, request) => loadUnionFindState(environment, request, caches),
    plan: planUnionFind,
    async persist(tx, compaction, state): Promise<void> {
      const { outcome } = state;
      if (!outcome) return;
      await tx.writeForest(
        forestWriteRecord({
          compactionId: compaction.id,
          sessionId: compaction.sessionId,
          previousCompactionId: outcome.previousCompactionId,
          seedCompactionId: outcome.seedCompactionId,
          forest: outcome.forest,
          changes: outcome.changes,
          topics: outcome.topics,
        }),
      );
    },
    committed(_environment, compaction, state): void {
      if (state.outcome) caches.forests.set(compaction.id, state.outcome.forest);
    },
    renderSummary: (compaction: RenderableCompaction) =>
      `${renderTopicsHeader(compaction.id, compaction.summarizedThroughTurnId)}\n${compaction.summary}`,
    contextSummary: (environment, request) => topicsForContext(environment, request, caches),
    // Topics dropped in the source stay dropped in the fork, which may then restore them on its own.
    forked: (tx, fork) => copyDrops(tx, fork.fromSessionId, fork.toSessionId, fork.at),
    check: (environment) => checkForests(environment),
  };
  return withCaches(strategy, caches);
}

async function loadUnionFindState(
  environment: StrategyEnvironment,
  request: StateRequest,
  caches: UnionFindCaches,
): Promise<UnionFindState> {
  const base = request.previous?.strategy === UNION_FIND ? request.previous.id : null;
  const drops = await activeDrops(environment.store, request.sessionId);
  const forest = await forestToExtend({ store: environment.store, caches }, base, drops);
  // Members of dirty topics from earlier compactions: their summary call comes with this one.
  const inWindow = new Set(request.window.map((turn) => turn.id));
  const older = forest
    .clusters()
    .flatMap((cluster) => cluster.pending)
    .filter((id) => !inWindow.has(id));
  const rows = await readTurnRowsById(environment.store, older);
  return { forest, turns: new Map([...rows].map(([id, row]) => [id, turnFromRow(row)])) };
}

/**
 * The topics a context shows. Without a room, they fill what the compaction set aside for its
 * summary (plus the header), so the context costs what the compaction turn's tokenCount says
 * whichever topics the query picks.
 */
async function topicsForContext(
  environment: StrategyEnvironment,
  request: SummaryRequest,
  caches: UnionFindCaches,
): Promise<ContextSummary> {
  const { compaction } = request;
  const through = compaction.summarizedThroughTurnId;
  const summaryTokens = (compaction.metadata as { summaryTokens?: unknown } | null)?.summaryTokens;
  const headerTokens = environment.tokenCounter.countText(renderTopicsHeader(compaction.id, through));
  const room = request.room ?? (typeof summaryTokens === 'number' ? summaryTokens + headerTokens : undefined);
  const topics = await topicContext(
    { store: environment.store, tokenCounter: environment.tokenCounter, lineValues: caches.lineValues },
    {
      compaction: { id: compaction.id, summarizedThroughTurnId: through },
      viewSessionId: request.viewSessionId,
      query: request.query,
      room,
    },
  );
  return { summaryBlock: topics.summaryBlock || null, injected: topics.injected, omittedTopicIds: topics.omittedTopicIds };
}
