// Rows for the parts of the store contract: sessions and turns as the
// agents ledger would plan them, written through the store's own operations.

import {
  type ForestClusterRecord,
  type LedgerStore,
  type SessionRecord,
  type StoreOperations,
  type TurnRecord,
  turnHash,
} from '../index.ts';

export function sessionRecord(id: string, fields: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    label: null,
    headTurnId: null,
    parentSessionId: null,
    forkedFromTurnId: null,
    rebuildFromRaw: false,
    ignoreCompactionsThroughDepth: null,
    contextWindow: 100_000,
    reserveTokens: 1_000,
    keepRecentTokens: 1_000,
    compactionStrategy: null,
    calibration: null,
    createdAt: 1_000,
    ...fields,
  };
}

/** A normal turn (a compaction when `fields.turnType` says so) at `depth` after `parent`. */
export function turnRecord(
  id: string,
  sessionId: string,
  parent: TurnRecord | null,
  fields: Partial<TurnRecord> = {},
): TurnRecord {
  const depth = parent ? parent.depth + 1 : 0;
  const row: TurnRecord = {
    id,
    sessionId,
    parentTurnId: parent?.id ?? null,
    depth,
    role: 'user',
    content: [{ type: 'text', text: `turn ${id}` }],
    model: null,
    tokenCount: 3,
    timestamp: 1_000 + depth,
    toolCallCount: 0,
    metadata: null,
    turnType: 'normal',
    summary: null,
    summarizedThroughTurnId: null,
    firstKeptTurnId: null,
    tokensBefore: null,
    tokensAfter: null,
    trigger: null,
    strategy: null,
    summarizer: null,
    usageInputTokens: null,
    usageOutputTokens: null,
    latestCompactionId: parent ? (parent.turnType === 'compaction' ? parent.id : parent.latestCompactionId) : null,
    cumulativeTokens: (parent?.cumulativeTokens ?? 0) + 3,
    searchText: `turn ${id}`,
    coversFromDepth: null,
    previousCompactionId: null,
    summarizedThroughDepth: null,
    hash: null,
    ...fields,
  };
  // Chained as the agents ledger chains them, unless the case sets a hash of its own.
  if (fields.hash === undefined) row.hash = turnHash({ turn: row, parentHash: parent?.hash ?? null, eventIds: [] });
  return row;
}

/** Appends turns to a session whose head is `after` (null: an empty session), checking it was written. */
export async function appendRows(
  store: StoreOperations | LedgerStore,
  sessionId: string,
  after: TurnRecord | null,
  turns: TurnRecord[],
): Promise<void> {
  const outcome = await store.appendToSession({ sessionId, expectedHeadTurnId: after?.id ?? null, turns });
  if (!outcome.written) throw new Error(`append to ${sessionId} was not written`);
}

/** A line of `count` normal turns in a new session; returns them, oldest first. */
export async function sessionWithTurns(
  store: LedgerStore,
  sessionId: string,
  count: number,
  fields: (depth: number) => Partial<TurnRecord> = () => ({}),
): Promise<TurnRecord[]> {
  await store.insertSession(sessionRecord(sessionId));
  const turns: TurnRecord[] = [];
  for (let depth = 0; depth < count; depth += 1) {
    turns.push(turnRecord(`${sessionId}-t${depth}`, sessionId, turns.at(-1) ?? null, fields(depth)));
  }
  await appendRows(store, sessionId, null, turns);
  return turns;
}

/** A forest cluster with small defaults (the forest and copy parts of the contract). */
export function clusterRecord(rootId: string, position: number, fields: Partial<ForestClusterRecord> = {}): ForestClusterRecord {
  return {
    rootId,
    position,
    members: 1,
    memberTokens: 3,
    summary: `summary of ${rootId}`,
    summaryVersion: 1,
    block: `[topic ${rootId}]`,
    blockTokens: 4,
    dirty: false,
    pending: [],
    absorbedSummaries: [],
    centroid: [
      ['alpha', 0.6],
      ['beta', 0.8],
    ],
    firstTimestamp: 1_000,
    lastTimestamp: 1_001,
    touched: 1,
    generation: 0,
    dropped: false,
    ...fields,
  };
}
