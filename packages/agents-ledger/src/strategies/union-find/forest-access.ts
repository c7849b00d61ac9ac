// Getting the forest a compaction holds: from the cache when this process built or loaded it
// already, else replayed from its rows. Readers share the cached copy; a compaction takes it (it is
// about to change it) and puts the next forest back once its own rows are written. A context never
// needs the whole forest (topic-context.ts reads one compaction's clusters); topic operations that
// follow members (find, expand) and compactions do.

import { TopicForest } from '@agent-ledger/forest';
import type { StoreOperations } from '@agent-ledger/store';
import { loadForestState } from './forest-store.ts';
import type { UnionFindCaches } from './union-find-caches.ts';

/** Where a forest is read from and kept: the store, and the strategy's caches. */
export interface ForestSource {
  store: StoreOperations;
  caches: UnionFindCaches;
}

export async function sharedForest(source: ForestSource, compactionId: string, drops: ReadonlySet<string>): Promise<TopicForest> {
  let forest = source.caches.forests.get(compactionId);
  if (!forest) {
    forest = new TopicForest({ state: await loadForestState(source.store, compactionId) });
    source.caches.forests.set(compactionId, forest);
  }
  return markDrops(forest, drops);
}

/** The forest to build the next compaction on: `compactionId`'s, or a fresh one for null. */
export async function forestToExtend(
  source: ForestSource,
  compactionId: string | null,
  drops: ReadonlySet<string>,
): Promise<TopicForest> {
  if (compactionId === null) return new TopicForest({ config: source.caches.config });
  const forest =
    source.caches.forests.take(compactionId) ?? new TopicForest({ state: await loadForestState(source.store, compactionId) });
  return markDrops(forest, drops);
}

/** A forest remembers drops as of its compaction; the viewing session's current drops decide. */
function markDrops(forest: TopicForest, drops: ReadonlySet<string>): TopicForest {
  for (const cluster of forest.clusters()) {
    if (cluster.dropped !== drops.has(cluster.id)) forest.setDropped(cluster.id, drops.has(cluster.id));
  }
  return forest;
}
