// What the union-find strategy keeps in memory for one ledger: forests this process loaded or built
// (so a runtime that compacts and builds contexts replays a forest's rows once), what each line of a
// stored topic block is worth (for contexts that show topics trimmed), and the settings for new
// forests. They live with the strategy, made once per ledger by createUnionFindStrategy; topic
// operations (find, expand, drop) reach them through the ledger's registered strategy.

import type { ForestConfig } from '@agent-ledger/forest';
import type { CompactionStrategy } from '../compaction-strategy.ts';
import { ForestCache } from './forest-cache.ts';
import { LineValueCache } from './line-value-cache.ts';

/** The name union-find compactions are recorded under (its own folder is the one place that says it). */
export const UNION_FIND = 'union-find';

export interface UnionFindCaches {
  forests: ForestCache;
  lineValues: LineValueCache;
  /** Settings for new forests (a stored forest keeps the settings it was made with). */
  config: Partial<ForestConfig>;
}

export function createUnionFindCaches(config: Partial<ForestConfig> = {}): UnionFindCaches {
  return { forests: new ForestCache(), lineValues: new LineValueCache(), config };
}

const CACHES = Symbol('union-find caches');

/** A strategy object carrying union-find's caches (the one createUnionFindStrategy makes does). */
export function withCaches<T extends object>(strategy: T, caches: UnionFindCaches): T {
  return Object.assign(strategy, { [CACHES]: caches });
}

// Registries without our strategy under its name (one replaced it) still get topic operations a
// cache of their own, once per registry.
const fallbacks = new WeakMap<object, UnionFindCaches>();

/** The caches of the union-find strategy registered in a ledger's strategies. */
export function unionFindCaches(strategies: ReadonlyMap<string, CompactionStrategy>): UnionFindCaches {
  const registered = strategies.get(UNION_FIND) as (CompactionStrategy & { [CACHES]?: UnionFindCaches }) | undefined;
  const own = registered?.[CACHES];
  if (own) return own;
  let fallback = fallbacks.get(strategies);
  if (!fallback) {
    fallback = createUnionFindCaches();
    fallbacks.set(strategies, fallback);
  }
  return fallback;
}
