// Loaded forests by compaction id, so a runtime that compacts and builds contexts in one process
// replays a forest's rows once, not on every call. Bounded: the least recently used go first.

import type { TopicForest } from '@agent-ledger/forest';
import { LruMap } from '../../lru-map.ts';

export class ForestCache {
  private readonly forests: LruMap<TopicForest>;

  constructor(capacity = 16) {
    this.forests = new LruMap(capacity);
  }

  get(compactionId: string): TopicForest | undefined {
    return this.forests.get(compactionId);
  }

  set(compactionId: string, forest: TopicForest): void {
    this.forests.set(compactionId, forest);
  }

  /** Removes and returns a forest, for a caller about to change it (a compaction building the next one). */
  take(compactionId: string): TopicForest | undefined {
    return this.forests.take(compactionId);
  }
}
