// What every operation of the agents ledger needs: the store and the injectable parts (clock, ids,
// token counter, summarizer, strategies). Built once by createAgentsLedger.

import type { Embedder, IdGenerator, TokenCounter } from '@agent-ledger/core';
import type { ForestConfig } from '@agent-ledger/forest';
import type { LedgerStore } from '@agent-ledger/store';
import type { Summarizer } from '@agent-ledger/summarizers';
import type { CompactionStrategy } from './compaction/compaction-strategy.ts';
import type { HeadCache } from './head-cache.ts';
import type { SessionQueue } from './session-queue.ts';
import type { ForestCache } from './topics/forest-cache.ts';
import type { LineValueCache } from './topics/line-value-cache.ts';

export interface LedgerContext {
  /** Every read and write goes through the store (packages/store/src/ledger-store.ts). */
  store: LedgerStore;
  tokenCounter: TokenCounter;
  summarizer: Summarizer;
  strategies: ReadonlyMap<string, CompactionStrategy>;
  defaultStrategy: string;
  /** Settings for new union-find forests (a stored forest keeps the settings it was made with). */
  forestConfig: Partial<ForestConfig>;
  forests: ForestCache;
  /** What each line of a stored topic block is worth, for contexts that show topics trimmed. */
  topicLineValues: LineValueCache;
  /** Appends to one session from this ledger, one after another (session-queue.ts). */
  appendQueue: SessionQueue;
  /** The head this process last wrote per session, so appends plan without reads (head-cache.ts). */
  heads: HeadCache;
  now: () => number;
  generateId: IdGenerator;
  /** Embeds turns for recall beside bm25 (context/semantic-query.ts); none by default. */
  embedder?: Embedder;
}
