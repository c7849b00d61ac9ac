// What every operation of the agents ledger needs: the database and the injectable parts (clock,
// ids, token counter, summarizer, strategies). Built once by createAgentsLedger.

import type { Embedder, IdGenerator, TokenCounter } from '@nexus/core';
import type { LedgerDatabase } from '@nexus/db';
import type { ForestConfig } from '@nexus/forest';
import type { Summarizer } from '@nexus/summarizers';
import type { CompactionStrategy } from './compaction/compaction-strategy.ts';
import type { ForestCache } from './topics/forest-cache.ts';

export interface LedgerContext {
  database: LedgerDatabase;
  tokenCounter: TokenCounter;
  summarizer: Summarizer;
  strategies: ReadonlyMap<string, CompactionStrategy>;
  defaultStrategy: string;
  /** Settings for new union-find forests (a stored forest keeps the settings it was made with). */
  forestConfig: Partial<ForestConfig>;
  forests: ForestCache;
  now: () => number;
  generateId: IdGenerator;
  /** Embeds turns for recall beside bm25 (context/semantic-query.ts); none by default. */
  embedder?: Embedder;
}
