// The union-find forest on SQLite: forest_states, forest_nodes, forest_clusters (0005), the
// lineages and document frequencies that let one compaction's statistics be read without its chain
// (forest_lineages, forest_terms: 0011), and topic_drops. Every table is write-once (triggers).

import { ForestIntegrityError } from '@agent-ledger/core';
import type {
  DocumentFrequencies,
  ForestClusterRecord,
  ForestIntegrityFinding,
  ForestNodeRecord,
  ForestStateRecord,
  ForestStore,
  ForestWrite,
  TopicDropRow,
} from '@agent-ledger/store';
import { parseJson, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

type RawRow = Record<string, unknown>;

const STATE_COLUMNS =
  'compaction_id AS compactionId, session_id AS sessionId, previous_compaction_id AS previousCompactionId, ' +
  'seed_compaction_id AS seedCompactionId, config, clock, document_count AS documentCount, changed_terms AS changedTerms';

const CLUSTER_COLUMNS =
  'root_id AS rootId, position, members, member_tokens AS memberTokens, summary, summary_version AS summaryVersion, ' +
  'block, block_tokens AS blockTokens, dirty, pending, absorbed_summaries AS absorbedSummaries, centroid, ' +
  'first_timestamp AS firstTimestamp, last_timestamp AS lastTimestamp, touched, generation, dropped';

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

const LINEAGE_OF =
  'SELECT l.lineage_id AS lineageId, l.lineage_parent_id AS lineageParentId, l.sequence, s.session_id AS sessionId, ' +
  's.document_count AS documentCount, ' +
  '(SELECT MAX(m.sequence) FROM forest_lineages m WHERE m.lineage_id = l.lineage_id) AS tip ' +
  'FROM forest_lineages l JOIN forest_states s ON s.compaction_id = l.compaction_id WHERE l.compaction_id = ?';
const TERM_AT =
  'SELECT document_frequency AS documentFrequency FROM forest_terms ' +
  'WHERE lineage_id = ? AND term = ? AND sequence <= ? ORDER BY sequence DESC LIMIT 1';

interface LineageRow {
  lineageId: string;
  lineageParentId: string | null;
  sequence: number;
  sessionId: string;
  documentCount: number;
  tip: number;
}

function decodeState(row: RawRow): ForestStateRecord {
  const state = row as unknown as ForestStateRecord;
  state.config = parseJson(row.config);
  state.changedTerms = parseJson(row.changedTerms) as Record<string, number>;
  return state;
}

function decodeCluster(row: RawRow): ForestClusterRecord {
  const cluster = row as unknown as ForestClusterRecord;
  cluster.dirty = row.dirty === 1 || row.dirty === true;
  cluster.dropped = row.dropped === 1 || row.dropped === true;
  cluster.pending = parseJson(row.pending) as string[];
  cluster.absorbedSummaries = parseJson(row.absorbedSummaries) as string[];
  cluster.centroid = parseJson(row.centroid) as Array<[string, number]>;
  return cluster;
}

export function forestQueries(connection: SqliteConnection): Synchronous<ForestStore> {
  const lineageOf = (compactionId: string) => connection.statement(LINEAGE_OF).get(compactionId) as LineageRow | undefined;

  return {
    writeForest(write: ForestWrite): void {
      const { state } = write;
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
      // A forest continues its previous one's lineage when both belong to one session and the
      // previous one is still the lineage's newest; otherwise (a fork's first forest, a fresh one)
      // it starts a lineage of its own, pointing at the forest it continues.
      let lineage = { lineageId: state.compactionId, lineageParentId: state.previousCompactionId, sequence: 0 };
      if (state.previousCompactionId !== null) {
        const previous = lineageOf(state.previousCompactionId);
        if (!previous) {
          throw new ForestIntegrityError(
            `Compaction ${state.compactionId} continues the forest of ${state.previousCompactionId}, which has none stored.`,
            [state.compactionId, state.previousCompactionId],
          );
        }
        if (previous.sessionId === state.sessionId && previous.sequence === previous.tip) {
          lineage = { lineageId: previous.lineageId, lineageParentId: previous.lineageParentId, sequence: previous.sequence + 1 };
        }
      }
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
      for (const cluster of write.clusters) {
        insertCluster.run(
          state.compactionId,
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
        );
      }
    },

    getForestState(compactionId: string): ForestStateRecord | undefined {
      const row = connection.statement(`SELECT ${STATE_COLUMNS} FROM forest_states WHERE compaction_id = ?`).get(compactionId);
      return row ? decodeState(row as RawRow) : undefined;
    },

    forestNodes(compactionId: string): ForestNodeRecord[] {
      return connection
        .statement(
          'SELECT node_id AS nodeId, parent_id AS parentId, kind FROM forest_nodes WHERE compaction_id = ? ORDER BY position',
        )
        .all(compactionId) as ForestNodeRecord[];
    },

    forestClusters(compactionId: string): ForestClusterRecord[] {
      return (
        connection
          .statement(`SELECT ${CLUSTER_COLUMNS} FROM forest_clusters WHERE compaction_id = ? ORDER BY position`)
          .all(compactionId) as RawRow[]
      ).map(decodeCluster);
    },

    documentFrequencies(compactionId: string, terms: readonly string[]): DocumentFrequencies | undefined {
      let lineage = lineageOf(compactionId);
      if (!lineage) return undefined;
      const result: DocumentFrequencies = { documentCount: lineage.documentCount, frequencies: new Map() };
      let remaining = [...new Set(terms)];
      const termAt = connection.statement(TERM_AT);
      // One seek per term in each lineage the forest continues (a lineage per fork on its line).
      while (lineage && remaining.length > 0) {
        const missing: string[] = [];
        for (const term of remaining) {
          const row = termAt.get(lineage.lineageId, term, lineage.sequence) as { documentFrequency: number } | undefined;
          if (row) result.frequencies.set(term, row.documentFrequency);
          else missing.push(term);
        }
        remaining = missing;
        lineage = lineage.lineageParentId === null ? undefined : lineageOf(lineage.lineageParentId);
      }
      return result;
    },

    recordTopicDrop(drop): void {
      connection
        .statement('INSERT INTO topic_drops (session_id, cluster_id, dropped, at) VALUES (?, ?, ?, ?)')
        .run(drop.sessionId, drop.clusterId, drop.dropped ? 1 : 0, drop.at);
    },

    droppedTopics(sessionId: string): string[] {
      const rows = connection
        .statement('SELECT cluster_id AS clusterId, dropped FROM topic_drops WHERE session_id = ? ORDER BY id')
        .all(sessionId) as Array<{ clusterId: string; dropped: number }>;
      const latest = new Map<string, boolean>();
      for (const row of rows) {
        latest.set(row.clusterId, row.dropped === 1);
      }
      return [...latest].filter(([, dropped]) => dropped).map(([clusterId]) => clusterId);
    },

    topicDropPage({ afterPosition, limit }): TopicDropRow[] {
      const rows = connection
        .statement(
          'SELECT id AS position, session_id AS sessionId, cluster_id AS clusterId, dropped, at FROM topic_drops ' +
            'WHERE id > ? ORDER BY id LIMIT ?',
        )
        .all(afterPosition ?? -1, limit) as Array<Omit<TopicDropRow, 'dropped'> & { dropped: number }>;
      return rows.map((row) => ({ ...row, dropped: row.dropped === 1 }));
    },

    forestIntegrityFindings(): ForestIntegrityFinding[] {
      const findings: ForestIntegrityFinding[] = [];
      const rows = (sql: string) => connection.statement(sql).all() as Array<{ compactionId: string; nodeId?: string }>;
      for (const row of rows(
        `SELECT f.compaction_id AS compactionId FROM forest_states f LEFT JOIN agent_turns c ON c.id = f.compaction_id
         WHERE c.id IS NULL OR c.turn_type <> 'compaction' OR c.strategy IS NOT 'union-find' ORDER BY f.compaction_id`,
      )) {
        findings.push({ code: 'FOREST_WITHOUT_COMPACTION', compactionId: row.compactionId, nodeId: null });
      }
      for (const row of rows(
        `SELECT c.id AS compactionId FROM agent_turns c LEFT JOIN forest_states f ON f.compaction_id = c.id
         WHERE c.turn_type = 'compaction' AND c.strategy = 'union-find' AND f.compaction_id IS NULL ORDER BY c.id`,
      )) {
        findings.push({ code: 'FOREST_MISSING', compactionId: row.compactionId, nodeId: null });
      }
      for (const row of rows(
        `SELECT compaction_id AS compactionId, node_id AS nodeId FROM forest_nodes
         WHERE node_id = compaction_id OR parent_id = compaction_id ORDER BY compaction_id, position`,
      )) {
        findings.push({ code: 'SELF_COMPACTION', compactionId: row.compactionId, nodeId: row.nodeId ?? null });
      }
      const nodes = connection
        .statement(
          `SELECT n.compaction_id AS compactionId, n.node_id AS nodeId, (t.id IS NULL OR p.id IS NULL) AS missing
           FROM forest_nodes n JOIN agent_turns c ON c.id = n.compaction_id
           LEFT JOIN agent_turns t ON t.id = n.node_id LEFT JOIN agent_turns p ON p.id = n.parent_id
           WHERE t.id IS NULL OR p.id IS NULL
              -- A folded-in flat compaction (the seed) may sit after the cut: it only has to come before.
              OR (t.turn_type = 'normal' AND t.depth > c.summarized_through_depth)
              OR (t.turn_type = 'compaction' AND t.depth >= c.depth)
           ORDER BY n.compaction_id, n.position`,
        )
        .all() as Array<{ compactionId: string; nodeId: string; missing: number }>;
      for (const row of nodes) {
        findings.push({
          code: row.missing ? 'UNRESOLVED_ID' : 'NODE_NOT_COVERED',
          compactionId: row.compactionId,
          nodeId: row.nodeId,
        });
      }
      return findings;
    },

    currentForestCompactions(): Array<{ compactionId: string; metadata: unknown }> {
      const rows = connection
        .statement(
          `SELECT DISTINCT c.id AS compactionId, c.metadata FROM agent_sessions s JOIN agent_turns h ON h.id = s.head_turn_id
           JOIN agent_turns c ON c.id = h.latest_compaction_id JOIN forest_states f ON f.compaction_id = c.id
           ORDER BY c.id`,
        )
        .all() as Array<{ compactionId: string; metadata: unknown }>;
      return rows.map((row) => ({ compactionId: row.compactionId, metadata: parseJson(row.metadata) }));
    },
  };
}
