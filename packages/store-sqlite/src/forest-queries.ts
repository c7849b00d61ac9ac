// A compaction's forest on SQLite: forest_states, forest_nodes, forest_clusters (0005), the
// lineages and document frequencies that let one compaction's statistics be read without its chain
// (forest_lineages, forest_terms: 0011; forest-lineage.ts), and topic_drops. Every table is
// write-once (triggers). Writing a forest is forest-write.ts, its integrity checks forest-integrity.ts.

import type {
  ForestClusterRecord,
  ForestNodeRecord,
  ForestStateRecord,
  ForestStore,
  TopicDropRecord,
  TopicDropRow,
} from '@agent-ledger/store';
import { forestChain } from './forest-chain.ts';
import { forestIntegrityFindings } from './forest-integrity.ts';
import { documentFrequencies } from './forest-lineage.ts';
import { decodeState, STATE_COLUMNS } from './forest-state-rows.ts';
import { writeForest } from './forest-write.ts';
import { parseJson, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

type RawRow = Record<string, unknown>;

const CLUSTER_COLUMNS =
  'root_id AS rootId, position, members, member_tokens AS memberTokens, summary, summary_version AS summaryVersion, ' +
  'block, block_tokens AS blockTokens, dirty, pending, absorbed_summaries AS absorbedSummaries, centroid, ' +
  'first_timestamp AS firstTimestamp, last_timestamp AS lastTimestamp, touched, generation, dropped';

function decodeCluster(row: RawRow): ForestClusterRecord {
  const cluster = row as unknown as ForestClusterRecord;
  cluster.dirty = row.dirty === 1 || row.dirty === true;
  cluster.dropped = row.dropped === 1 || row.dropped === true;
  cluster.pending = parseJson(row.pending) as string[];
  cluster.absorbedSummaries = parseJson(row.absorbedSummaries) as string[];
  cluster.centroid = parseJson(row.centroid) as Array<[string, number]>;
  return cluster;
}

function getForestState(connection: SqliteConnection, compactionId: string): ForestStateRecord | undefined {
  const row = connection.statement(`SELECT ${STATE_COLUMNS} FROM forest_states WHERE compaction_id = ?`).get(compactionId);
  return row ? decodeState(row as RawRow) : undefined;
}

function forestNodes(connection: SqliteConnection, compactionId: string): ForestNodeRecord[] {
  return connection
    .statement(
      'SELECT node_id AS nodeId, parent_id AS parentId, kind FROM forest_nodes WHERE compaction_id = ? ORDER BY position',
    )
    .all(compactionId) as ForestNodeRecord[];
}

function forestClusters(connection: SqliteConnection, compactionId: string): ForestClusterRecord[] {
  return (
    connection
      .statement(`SELECT ${CLUSTER_COLUMNS} FROM forest_clusters WHERE compaction_id = ? ORDER BY position`)
      .all(compactionId) as RawRow[]
  ).map(decodeCluster);
}

function recordTopicDrop(connection: SqliteConnection, drop: TopicDropRecord): void {
  connection
    .statement('INSERT INTO topic_drops (session_id, cluster_id, dropped, at) VALUES (?, ?, ?, ?)')
    .run(drop.sessionId, drop.clusterId, drop.dropped ? 1 : 0, drop.at);
}

function droppedTopics(connection: SqliteConnection, sessionId: string): string[] {
  const rows = connection
    .statement('SELECT cluster_id AS clusterId, dropped FROM topic_drops WHERE session_id = ? ORDER BY id')
    .all(sessionId) as Array<{ clusterId: string; dropped: number }>;
  const latest = new Map<string, boolean>();
  for (const row of rows) {
    latest.set(row.clusterId, row.dropped === 1);
  }
  return [...latest].filter(([, dropped]) => dropped).map(([clusterId]) => clusterId);
}

function topicDropPage(
  connection: SqliteConnection,
  { afterPosition, limit }: { afterPosition?: number; limit: number },
): TopicDropRow[] {
  const rows = connection
    .statement(
      'SELECT id AS position, session_id AS sessionId, cluster_id AS clusterId, dropped, at FROM topic_drops ' +
        'WHERE id > ? ORDER BY id LIMIT ?',
    )
    .all(afterPosition ?? -1, limit) as Array<Omit<TopicDropRow, 'dropped'> & { dropped: number }>;
  return rows.map((row) => ({ ...row, dropped: row.dropped === 1 }));
}

function currentForestCompactions(connection: SqliteConnection): Array<{ compactionId: string; metadata: unknown }> {
  const rows = connection
    .statement(
      `SELECT DISTINCT c.id AS compactionId, c.metadata FROM agent_sessions s JOIN agent_turns h ON h.id = s.head_turn_id
       JOIN agent_turns c ON c.id = h.latest_compaction_id JOIN forest_states f ON f.compaction_id = c.id
       ORDER BY c.id`,
    )
    .all() as Array<{ compactionId: string; metadata: unknown }>;
  return rows.map((row) => ({ compactionId: row.compactionId, metadata: parseJson(row.metadata) }));
}

export function forestQueries(connection: SqliteConnection): Synchronous<ForestStore> {
  return {
    writeForest: (write) => writeForest(connection, write),
    getForestState: (compactionId) => getForestState(connection, compactionId),
    forestNodes: (compactionId) => forestNodes(connection, compactionId),
    forestChain: (compactionId) => forestChain(connection, compactionId),
    forestClusters: (compactionId) => forestClusters(connection, compactionId),
    documentFrequencies: (compactionId, terms) => documentFrequencies(connection, compactionId, terms),
    recordTopicDrop: (drop) => recordTopicDrop(connection, drop),
    droppedTopics: (sessionId) => droppedTopics(connection, sessionId),
    topicDropPage: (page) => topicDropPage(connection, page),
    forestIntegrityFindings: (options) => forestIntegrityFindings(connection, options),
    currentForestCompactions: () => currentForestCompactions(connection),
  };
}
