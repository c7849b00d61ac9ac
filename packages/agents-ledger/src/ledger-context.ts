// What every operation of the agents ledger needs: the store and the injectable parts (clock, ids,
// token counter, summarizer, strategies). Built once by createAgentsLedger. What a strategy keeps
// for itself (union-find's forest caches) lives with the strategy, not here.

import type { Embedder, IdGenerator, TokenCounter } from '@agent-ledger/core';
import type { LedgerStore } from '@agent-ledger/store';
import type { Summarizer } from '@agent-ledger/summarizers';
import type { HeadCache } from './head-cache.ts';
import type { SessionQueue } from './session-queue.ts';
import type { CompactionStrategy, StrategyEnvironment } from './strategies/compaction-strategy.ts';

export interface LedgerContext {
  /** Every read and write goes through the store (packages/store/src/ledger-store.ts). */
  store: LedgerStore;
  tokenCounter: TokenCounter;
  summarizer: Summarizer;
  strategies: ReadonlyMap<string, CompactionStrategy>;
  defaultStrategy: string;
  /** Appends to one session from this ledger, one after another (session-queue.ts). */
  appendQueue: SessionQueue;
  /** The head this process last wrote per session, so appends plan without reads (head-cache.ts). */
  heads: HeadCache;
  now: () => number;
  generateId: IdGenerator;
  /** Embeds turns for recall beside bm25 (context/semantic-query.ts); none by default. */
  embedder?: Embedder;
  /** How long a compaction's lease holds without renewal (compaction/compaction-lease.ts). */
  compactionLeaseMs?: number;
}

/** What a strategy's hooks are given (compaction-strategy.ts). */
export function strategyEnvironment(ledger: Pick<LedgerContext, 'store' | 'tokenCounter'>): StrategyEnvironment {
  return { store: ledger.store, tokenCounter: ledger.tokenCounter };
}
