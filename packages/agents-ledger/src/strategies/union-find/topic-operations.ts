// The topic operations of the ledger: list a session's topics, find the topic of a turn, expand a
// topic to its turns, drop or restore a topic. All read the forest of the newest compaction on the
// viewing session's line, so a fork sees its own topics and its source's up to the fork point.

import { ClusterNotFoundError, type CompactionTurn, InvalidInputError, type Turn } from '@agent-ledger/core';
import type { SessionRecord, StoredTurn } from '@agent-ledger/store';
import { effectiveCompaction } from '../../chain-arithmetic.ts';
import { findCompactionThatSummarized } from '../../history.ts';
import type { LedgerContext } from '../../ledger-context.ts';
import { requireSessionRow, requireTurnRow } from '../../store/chain.ts';
import { turnsWithEventLinks } from '../../store/event-links.ts';
import { readTurnRowsById } from '../../store/turns-by-id.ts';
import { sharedForest } from './forest-access.ts';
import { readTopicRows } from './forest-store.ts';
import { activeDrops, isDropped, recordDrop } from './topic-drops.ts';
import { UNION_FIND, unionFindCaches } from './union-find-caches.ts';

export interface Topic {
  id: string;
  members: number;
  /** Tokens the topic's block costs in a context. */
  tokens: number;
  /** Tokens of its member turns (what expanding it costs). */
  memberTokens: number;
  summary: string | null;
  summaryVersion: number;
  dirty: boolean;
  dropped: boolean;
  firstTimestamp: number;
  lastTimestamp: number;
  /** The start of the summary, for listings. */
  preview: string;
  /** The compaction whose forest this listing comes from. */
  compactionId: string;
}

export interface TopicOfTurn {
  turnId: string;
  /** The topic standing for the turn, or null while the turn is raw (or compacted by flat only). */
  clusterId: string | null;
  /** The newest compaction on the line covering the turn (canon), or null. */
  compactionId: string | null;
}

export async function listTopics(ledger: LedgerContext, sessionId: string): Promise<Topic[]> {
  const view = await requireSessionRow(ledger.store, sessionId);
  const compaction = await unionFindCompactionOf(ledger, view);
  if (!compaction) return [];
  const drops = await activeDrops(ledger.store, view.id);
  return (await readTopicRows(ledger.store, compaction.id)).map((row) => ({
    id: row.rootId,
    members: row.members,
    tokens: row.blockTokens,
    memberTokens: row.memberTokens,
    summary: row.summary,
    summaryVersion: row.summaryVersion,
    dirty: row.dirty,
    dropped: drops.has(row.rootId),
    firstTimestamp: row.firstTimestamp,
    lastTimestamp: row.lastTimestamp,
    preview: preview(row.summary ?? row.block),
    compactionId: compaction.id,
  }));
}

export async function findTopic(ledger: LedgerContext, turnId: string, sessionId?: string): Promise<TopicOfTurn> {
  const { store } = ledger;
  const turn = await requireTurnRow(store, turnId);
  const view = await requireSessionRow(store, sessionId ?? turn.sessionId);
  const compaction = view.headTurnId
    ? await effectiveCompaction(store, await requireTurnRow(store, view.headTurnId), view)
    : null;
  const compactor = await findCompactionThatSummarized(ledger, turnId, { sessionId: view.id });
  if (!compaction || !compactor) return { turnId, clusterId: null, compactionId: compactor ? (compaction?.id ?? null) : null };
  if (compaction.strategy !== UNION_FIND) return { turnId, clusterId: null, compactionId: compaction.id };
  const forest = await sharedForest(forestSource(ledger), compaction.id, await activeDrops(store, view.id));
  // A turn a flat compaction summarized before the forest began is in the topic its summary joined.
  let node: CompactionTurn | null = compactor;
  let clusterId = forest.find(turnId);
  while (clusterId === null && node) {
    clusterId = forest.find(node.id);
    node = clusterId === null ? await findCompactionThatSummarized(ledger, node.id, { sessionId: view.id }) : null;
  }
  return { turnId, clusterId, compactionId: compaction.id };
}

export async function expandTopic(ledger: LedgerContext, clusterId: string, sessionId?: string): Promise<Turn[]> {
  const { view, compaction } = await topicView(ledger, clusterId, sessionId);
  const forest = await sharedForest(forestSource(ledger), compaction.id, await activeDrops(ledger.store, view.id));
  const ids = forest.expand(clusterId);
  const rows = await readTurnRowsById(ledger.store, ids);
  return turnsWithEventLinks(
    ledger.store,
    ids.map((id) => rows.get(id) as StoredTurn),
  );
}

/** Records a drop (or, with `restore`, its undoing); no turn or topic is deleted. */
export async function setTopicDropped(
  ledger: LedgerContext,
  clusterId: string,
  dropped: boolean,
  sessionId?: string,
): Promise<Topic> {
  const { view, compaction } = await topicView(ledger, clusterId, sessionId);
  if (!(await readTopicRows(ledger.store, compaction.id)).some((row) => row.rootId === clusterId)) {
    // Let the forest explain: a member of another topic, or not in the forest at all.
    (await sharedForest(forestSource(ledger), compaction.id, new Set())).expand(clusterId);
  }
  await ledger.store.transaction(async (tx) => {
    if ((await isDropped(tx, view.id, clusterId)) !== dropped)
      await recordDrop(tx, { sessionId: view.id, clusterId, dropped, at: ledger.now() });
  });
  return (await listTopics(ledger, view.id)).find((topic) => topic.id === clusterId) as Topic;
}

async function topicView(ledger: LedgerContext, clusterId: string, sessionId?: string) {
  if (typeof clusterId !== 'string' || clusterId === '')
    throw new InvalidInputError('A topic id is a turn id such as t_abc123.', 'clusterId');
  const rootTurn = await ledger.store.getTurn(clusterId);
  if (!rootTurn && !sessionId)
    throw new ClusterNotFoundError(clusterId, 'no turn has that id; topics(sessionId) lists topic ids.');
  const view = await requireSessionRow(ledger.store, sessionId ?? (rootTurn as StoredTurn).sessionId);
  const compaction = await unionFindCompactionOf(ledger, view);
  if (!compaction) {
    throw new ClusterNotFoundError(
      clusterId,
      `session ${view.id} has no union-find compaction yet (nexus compact ${view.id} --strategy union-find).`,
    );
  }
  return { view, compaction };
}

async function unionFindCompactionOf(ledger: LedgerContext, view: SessionRecord): Promise<StoredTurn | null> {
  if (!view.headTurnId) return null;
  const compaction = await effectiveCompaction(ledger.store, await requireTurnRow(ledger.store, view.headTurnId), view);
  return compaction?.strategy === UNION_FIND ? compaction : null;
}

function preview(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1)}…`;
}

function forestSource(ledger: LedgerContext) {
  return { store: ledger.store, caches: unionFindCaches(ledger.strategies) };
}
