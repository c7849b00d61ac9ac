// What every operation of the agents ledger needs: the database and the injectable parts (clock,
// ids, token counter, summarizer, strategies). Built once by createAgentsLedger.

import type { IdGenerator, TokenCounter } from '@nexus/core';
import type { LedgerDatabase } from '@nexus/db';
import type { Summarizer } from '@nexus/summarizers';
import type { CompactionStrategy } from './compaction/compaction-strategy.ts';

export interface LedgerContext {
  database: LedgerDatabase;
  tokenCounter: TokenCounter;
  summarizer: Summarizer;
  strategies: ReadonlyMap<string, CompactionStrategy>;
  defaultStrategy: string;
  now: () => number;
  generateId: IdGenerator;
}
