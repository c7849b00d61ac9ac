// Writing a compaction's forest on SQLite: its state (forest_states), its place in a lineage with the
// document frequencies it changed (forest_lineages, forest_terms), the parent pointers it set
// (forest_nodes) and its clusters (forest_clusters). Every table is write-once (triggers).

import {
  type ForestClusterRecord,
  type ForestStateRecord,
  type ForestWrite,
  type LineagePlace,
  lineagePlaceOf,
} from '@agent-ledger/store';
import { lineageOf } from './forest-lineage.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

const INSERT_STATE =
  'INSERT INTO forest_states (compaction_id, session_id, previous_compaction_id, seed_compaction_id, config, clock, ' +
  'document_count, changed_terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
const INSERT_LINEAGE = 'INSERT INTO forest_lineages (compaction_id, lineage_id, lineage_parent_id, sequence) VALUES (?, ?, ?, ?)';
const INSERT_TERM = 'INSERT INTO forest_terms (lineage_id, term, sequence, document_frequency) VALUES (?, ?, ?, ?)';
const INSERT_NODE = 'INSERT INTO forest_nodes (compaction_id, node_id, parent_id, kind, position) VALUES (?, ?, ?, ?, ?)';
const INSERT_CLUSTER =
  'INSERT INTO forest_clusters (compaction_id, root_id, position, members, member_tokens, summary, summary_version, ' +
  'block, block_tokens, dirty, pending, absorbed_summaries, centroid, first_timestamp, last_timestamp, touched, ' +
  'generation, dropped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** Where the new forest goes among the lineages (@agent-ledger/store's rule, on what SQLite reads). */
function lineagePlace(connection: SqliteConnection, state: ForestStateRecord): LineagePlace {
  return lineagePlaceOf(
    state,
    state.previousCompactionId === null ? undefined : lineageOf(connection, state.previousCompactionId),
  );
}

function insertState(connection: SqliteConnection, state: ForestStateRecord): void {
  connection
    .statement(INSERT_STATE)
    .run(
      state.compactionId,
      state.sessionId,
      state.previousCompactionId,
      state.seedCompactionId,
      JSON.stringify(state.config),
      state.clock,
      state.documentCount,
      JSON.stringify(state.changedTerms),
    );
}

function clusterParameters(compactionId: string, cluster: ForestClusterRecord): unknown[] {
  return [
    compactionId,
    cluster.rootId,
    cluster.position,
    cluster.members,
    cluster.memberTokens,
    cluster.summary,
    cluster.summaryVersion,
    cluster.block,
    cluster.blockTokens,
    cluster.dirty ? 1 : 0,
    JSON.stringify(cluster.pending),
    JSON.stringify(cluster.absorbedSummaries),
    JSON.stringify(cluster.centroid),
    cluster.firstTimestamp,
    cluster.lastTimestamp,
    cluster.touched,
    cluster.generation,
    cluster.dropped ? 1 : 0,
  ];
}

export function writeForest(connection: SqliteConnection, write: ForestWrite): void {
  const { state } = write;
  insertState(connection, state);
  const lineage = lineagePlace(connection, state);
  connection.statement(INSERT_LINEAGE).run(state.compactionId, lineage.lineageId, lineage.lineageParentId, lineage.sequence);
  const insertTerm = connection.statement(INSERT_TERM);
  for (const [term, frequency] of Object.entries(state.changedTerms)) {
    insertTerm.run(lineage.lineageId, term, lineage.sequence, frequency);
  }
  const insertNode = connection.statement(INSERT_NODE);
  write.nodes.forEach((node, position) => {
    insertNode.run(state.compactionId, node.nodeId, node.parentId, node.kind, position);
  });
  const insertCluster = connection.statement(INSERT_CLUSTER);
  for (const cluster of write.clusters) insertCluster.run(clusterParameters(state.compactionId, cluster));
}
