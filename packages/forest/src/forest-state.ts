// The forest written out as a ForestState (parent pointers as indices, clusters with their
// centroids as term-ordered entries) and read back, checking that the pointers and the cluster
// records agree before anything is trusted.

import { ForestIntegrityError } from '@agent-ledger/core';
import { centroidEntries, centroidOf, type TermDictionary } from './centroid.ts';
import { type ClusterRecord, type ClusterTable, pendingIds } from './cluster-records.ts';
import type { ForestConfig } from './forest-config.ts';
import type { ForestState } from './forest-types.ts';
import type { TfIdfModel } from './tf-idf.ts';

/** What a ForestState holds beyond the nodes and clusters. */
export interface ForestSettings {
  config: ForestConfig;
  clock: number;
  tfidf: TfIdfModel;
}

export function serializeForest(table: ClusterTable, { config, clock, tfidf }: ForestSettings): ForestState {
  const ordered = [...table.nodes.values()].sort((a, b) => a.sequence - b.sequence);
  const index = new Map(ordered.map((node, position) => [node.id, position]));
  return {
    version: 1,
    config: { ...config },
    clock,
    tfidf: tfidf.state(),
    nodes: ordered.map((node) => ({
      id: node.id,
      parent: index.get(node.parent) as number,
      tokens: node.tokens,
      timestamp: node.timestamp,
      ...(node.text === undefined ? {} : { text: node.text }),
    })),
    clusters: table.roots.map((id) => {
      const record = table.records.get(id) as ClusterRecord;
      const { memberChain: _members, pendingChain: _pending, ...cluster } = record;
      return {
        ...cluster,
        pending: pendingIds(record, table.nodes),
        absorbedSummaries: [...cluster.absorbedSummaries],
        centroid: centroidEntries(cluster.centroid),
      };
    }),
  };
}

/** Fills an empty table from `state` (the version is checked; the clock is the caller's). */
export function restoreForest(table: ClusterTable, state: ForestState, dictionary: TermDictionary): void {
  if (state.version !== 1) throw new ForestIntegrityError(`Unknown forest state version ${String(state.version)}.`);
  restoreNodes(table, state);
  const members = membersByRoot(table);
  for (const cluster of state.clusters) restoreCluster({ table, cluster, memberIds: members.get(cluster.id) ?? [], dictionary });
  const orphans = [...members.keys()].filter((root) => !table.records.has(root));
  if (orphans.length > 0) throw new ForestIntegrityError(`Roots without a cluster record: ${orphans.join(', ')}.`, orphans);
}

function restoreNodes({ nodes }: ClusterTable, state: ForestState): void {
  state.nodes.forEach((node, sequence) => {
    const parent = state.nodes[node.parent];
    if (!parent)
      throw new ForestIntegrityError(`Node ${node.id} has parent index ${node.parent}, outside the forest.`, [node.id]);
    nodes.add({
      id: node.id,
      parent: parent.id,
      sequence,
      tokens: node.tokens,
      timestamp: node.timestamp,
      text: node.text,
      nextMember: null,
      nextPending: null,
    });
  });
}

/** Each root's node ids, in node order. */
function membersByRoot({ nodes }: ClusterTable): Map<string, string[]> {
  const members = new Map<string, string[]>();
  for (const node of nodes.values()) {
    // Not find(): path compression here would make a reloaded forest's pointers differ from the saved ones.
    const root = nodes.rootWithoutCompression(node.id);
    const list = members.get(root);
    if (list) list.push(node.id);
    else members.set(root, [node.id]);
  }
  return members;
}

interface StoredCluster {
  table: ClusterTable;
  cluster: ForestState['clusters'][number];
  /** The ids whose parent pointers lead to the cluster's root. */
  memberIds: string[];
  dictionary: TermDictionary;
}

function restoreCluster({ table, cluster, memberIds, dictionary }: StoredCluster): void {
  const { nodes } = table;
  if (memberIds.length !== cluster.members) {
    throw new ForestIntegrityError(
      `Cluster ${cluster.id} records ${cluster.members} members but ${memberIds.length} nodes lead to it.`,
      [cluster.id],
    );
  }
  const unknown = cluster.pending.filter((id) => !nodes.has(id));
  if (unknown.length > 0) {
    throw new ForestIntegrityError(`Cluster ${cluster.id} waits to summarize ${unknown.join(', ')}, not in the forest.`, [
      cluster.id,
      ...unknown,
    ]);
  }
  const { pending, ...stored } = cluster;
  table.records.set(cluster.id, {
    ...stored,
    pendingChain: nodes.linkChain(nodes.inGraduationOrder(pending), 'nextPending'),
    absorbedSummaries: [...cluster.absorbedSummaries],
    // As stored (never trimmed again): the same terms, in the same order, as the live one had.
    centroid: centroidOf(cluster.centroid, Number.POSITIVE_INFINITY, dictionary),
    memberChain: nodes.linkChain(memberIds, 'nextMember'),
  });
  table.roots.push(cluster.id);
}
