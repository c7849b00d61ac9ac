// Putting a forest chain in order, for every engine: the engine reads the states reachable from a
// compaction and their nodes in a fixed number of queries (a recursive query, then one read of the
// nodes), and this walks the previousCompactionId pointers over what was read, in memory.

import type { ForestChainLink, ForestNodeRecord, ForestStateRecord } from './forest-store.ts';

/** A node row as an engine reads it for a whole chain: with the compaction that set it. */
export type ChainNodeRow = ForestNodeRecord & { compactionId: string };

/**
 * The chain from `compactionId`, newest first, over the states and node rows read (node rows in the
 * order each compaction set them). Stops before an id not read or already listed.
 */
export function linkForestChain(
  compactionId: string,
  states: readonly ForestStateRecord[],
  nodeRows: readonly ChainNodeRow[],
): ForestChainLink[] {
  const stateById = new Map(states.map((state) => [state.compactionId, state]));
  const nodesById = new Map<string, ForestNodeRecord[]>();
  for (const { compactionId: owner, ...node } of nodeRows) {
    const list = nodesById.get(owner) ?? [];
    list.push(node);
    nodesById.set(owner, list);
  }
  const chain: ForestChainLink[] = [];
  const listed = new Set<string>();
  let id: string | null = compactionId;
  while (id !== null && !listed.has(id)) {
    const state = stateById.get(id);
    if (!state) break;
    listed.add(id);
    chain.push({ state, nodes: nodesById.get(id) ?? [] });
    id = state.previousCompactionId;
  }
  return chain;
}
