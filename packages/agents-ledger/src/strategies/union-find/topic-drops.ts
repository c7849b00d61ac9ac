// Which topics a session has dropped. A drop stops a topic being injected into the session's
// contexts and taking new members; nothing is deleted, and a restore is a newer row, so the record
// of who dropped what, and when, stays.

import type { StoreOperations } from '@agent-ledger/store';

/** Topic ids whose newest row in this session says dropped. */
export async function activeDrops(store: StoreOperations, sessionId: string): Promise<Set<string>> {
  return new Set(await store.droppedTopics(sessionId));
}

export async function isDropped(store: StoreOperations, sessionId: string, clusterId: string): Promise<boolean> {
  return (await activeDrops(store, sessionId)).has(clusterId);
}

export function recordDrop(
  store: StoreOperations,
  drop: { sessionId: string; clusterId: string; dropped: boolean; at: number },
): Promise<void> {
  return store.recordTopicDrop(drop);
}

/** A fork starts with its source's drops (a few rows, whatever the history's length). */
export async function copyDrops(store: StoreOperations, fromSessionId: string, toSessionId: string, at: number): Promise<void> {
  for (const clusterId of await activeDrops(store, fromSessionId))
    await recordDrop(store, { sessionId: toSessionId, clusterId, dropped: true, at });
}
