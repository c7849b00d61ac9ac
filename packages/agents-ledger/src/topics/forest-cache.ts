// Loaded forests by compaction id, so a runtime that compacts and builds contexts in one process
// replays a forest's rows once, not on every call. Bounded: the least recently used go first.

import type { TopicForest } from '@nexus/forest';

export class ForestCache {
  private readonly forests = new Map<string, TopicForest>();

  constructor(private readonly capacity = 16) {}

  get(compactionId: string): TopicForest | undefined {
    const forest = this.forests.get(compactionId);
    if (forest) {
      this.forests.delete(compactionId);
      this.forests.set(compactionId, forest);
    }
    return forest;
  }

  set(compactionId: string, forest: TopicForest): void {
    this.forests.delete(compactionId);
    this.forests.set(compactionId, forest);
    while (this.forests.size > this.capacity) {
      const oldest = this.forests.keys().next().value as string;
      this.forests.delete(oldest);
    }
  }

  /** Removes and returns a forest, for a caller about to change it (a compaction building the next one). */
  take(compactionId: string): TopicForest | undefined {
    const forest = this.forests.get(compactionId);
    this.forests.delete(compactionId);
    return forest;
  }
}
