// The compactions' topic forests on PostgreSQL: forest_states, forest_nodes, forest_clusters, the
// lineages and document frequencies that let one compaction's statistics be read without its chain
// (forest_lineages, forest_terms), and topic_drops. Every table is write-once (triggers). The
// semantics are sqlite/forest-queries.ts's; a forest's rows go in a few array-bound statements.
// Which compactions must have a forest is the strategies' business: forest-integrity-queries.ts.

import {
  type DocumentFrequencies,
  type ForestClusterRecord,
  type ForestNodeRecord,
  type ForestStateRecord,
  type ForestStore,
  type ForestWrite,
  type LineagePlace,
  lineagePlaceOf,
  type PreviousLineage,
  type TopicDropRecord,
  type TopicDropRow,
} from '@agent-ledger/store';
import { forestChain } from './forest-chain-queries.ts';
import { forestIntegrityFindings } from './forest-integrity-queries.ts';
import { FOREST_STATE_COLUMNS } from './forest-state-columns.ts';
import type { PgExecutor } from './pg-executor.ts';

const CLUSTER_COLUMNS =
  'root_id AS "rootId", position::int AS position, members::int AS members, member_tokens::float8 AS "memberTokens", ' +
  'summary, summary_version::int AS "summaryVersion", block, block_tokens::float8 AS "blockTokens", dirty, pending, ' +
  'absorbed_summaries AS "absorbedSummaries", centroid, first_timestamp::float8 AS "firstTimestamp", ' +
  'last_timestamp::float8 AS "lastTimestamp", touched::float8 AS touched, generation::int AS generation, dropped';

// The row of a compaction's forest in its lineage, with the lineage's newest sequence.
const LINEAGE_OF =
  'SELECT l.lineage_id AS "lineageId", l.lineage_parent_id AS "lineageParentId", l.sequence::int AS sequence, ' +
  's.session_id AS "sessionId", s.document_count::float8 AS "documentCount", ' +
  '(SELECT MAX(m.sequence) FROM forest_lineages m WHERE m.lineage_id = l.lineage_id)::int AS tip ' +
  'FROM forest_lineages l JOIN forest_states s ON s.compaction_id = l.compaction_id WHERE l.compaction_id = $1';

// The frequency of each asked term as of a forest: the lineages it continues, nearest first, and in
// each one index seek per term (its newest row at or below the forest's place in that lineage);
// the nearest lineage holding a term decides.
const TERMS_AT = `
  WITH RECURSIVE chain (level, lineage_id, sequence, parent_id) AS (
    SELECT 0, lineage_id, sequence, lineage_parent_id FROM forest_lineages WHERE compaction_id = $1
    UNION ALL
    SELECT chain.level + 1, l.lineage_id, l.sequence, l.lineage_parent_id
    FROM chain JOIN forest_lineages l ON l.compaction_id = chain.parent_id
  )
  SELECT DISTINCT ON (asked.term) asked.term, found.document_frequency::float8 AS "documentFrequency"
  FROM chain CROSS JOIN unnest($2::text[]) AS asked (term)
  CROSS JOIN LATERAL (
    SELECT t.document_frequency FROM forest_terms t
    WHERE t.lineage_id = chain.lineage_id AND t.term = asked.term AND t.sequence <= chain.sequence
    ORDER BY t.sequence DESC LIMIT 1
  ) AS found
  ORDER BY asked.term, chain.level`;

const INSERT_STATE =
  'INSERT INTO forest_states (compaction_id, session_id, previous_compaction_id, seed_compaction_id, config, clock, ' +
  'document_count, changed_terms) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::jsonb)';
const INSERT_LINEAGE =
  'INSERT INTO forest_lineages (compaction_id, lineage_id, lineage_parent_id, sequence) VALUES ($1, $2, $3, $4)';
const INSERT_TERMS =
  'INSERT INTO forest_terms (lineage_id, term, sequence, document_frequency) ' +
  'SELECT $1, term, $2, frequency FROM unnest($3::text[], $4::bigint[]) AS changed (term, frequency)';
const INSERT_NODES =
  'INSERT INTO forest_nodes (compaction_id, node_id, parent_id, kind, position) ' +
  'SELECT $1, node_id, parent_id, kind, position - 1 ' +
  'FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS node (node_id, parent_id, kind, position)';
const INSERT_CLUSTERS =
  'INSERT INTO forest_clusters (compaction_id, root_id, position, members, member_tokens, summary, summary_version, ' +
  'block, block_tokens, dirty, pending, absorbed_summaries, centroid, first_timestamp, last_timestamp, touched, ' +
  'generation, dropped) ' +
  'SELECT $1, root_id, position, members, member_tokens, summary, summary_version, block, block_tokens, dirty, ' +
  'pending::jsonb, absorbed::jsonb, centroid::jsonb, first_timestamp, last_timestamp, touched, generation, dropped ' +
  'FROM unnest($2::text[], $3::int[], $4::int[], $5::bigint[], $6::text[], $7::int[], $8::text[], $9::bigint[], ' +
  '$10::boolean[], $11::text[], $12::text[], $13::text[], $14::bigint[], $15::bigint[], $16::bigint[], $17::int[], ' +
  '$18::boolean[]) AS cluster (root_id, position, members, member_tokens, summary, summary_version, block, block_tokens, ' +
  'dirty, pending, absorbed, centroid, first_timestamp, last_timestamp, touched, generation, dropped)';

/** A forest's place in its lineage, with the lineage's document count as of it. */
type LineageRow = PreviousLineage & { documentCount: number };

async function insertClusters(db: PgExecutor, compactionId: string, clusters: readonly ForestClusterRecord[]) {
  if (clusters.length === 0) return;
  const column = <T>(pick: (cluster: ForestClusterRecord) => T) => clusters.map(pick);
  await db.execute(INSERT_CLUSTERS, [
    compactionId,
    column((c) => c.rootId),
    column((c) => c.position),
    column((c) => c.members),
    column((c) => c.memberTokens),
    column((c) => c.summary),
    column((c) => c.summaryVersion),
    column((c) => c.block),
    column((c) => c.blockTokens),
    column((c) => c.dirty),
    column((c) => JSON.stringify(c.pending)),
    column((c) => JSON.stringify(c.absorbedSummaries)),
    column((c) => JSON.stringify(c.centroid)),
    column((c) => c.firstTimestamp),
    column((c) => c.lastTimestamp),
    column((c) => c.touched),
    column((c) => c.generation),
    column((c) => c.dropped),
  ]);
}

async function lineageOf(db: PgExecutor, compactionId: string): Promise<LineageRow | undefined> {
  return (await db.query<LineageRow>(LINEAGE_OF, [compactionId]))[0];
}

/** Where the new forest goes among the lineages (@agent-ledger/store's rule, on what PostgreSQL reads). */
async function lineageFor(db: PgExecutor, state: ForestStateRecord): Promise<LineagePlace> {
  return lineagePlaceOf(state, state.previousCompactionId === null ? undefined : await lineageOf(db, state.previousCompactionId));
}

async function writeForest(db: PgExecutor, write: ForestWrite): Promise<void> {
  const { state } = write;
  await db.atomically(async (transaction) => {
    await transaction.execute(INSERT_STATE, [
      state.compactionId,
      state.sessionId,
      state.previousCompactionId,
      state.seedCompactionId,
      JSON.stringify(state.config),
      state.clock,
      state.documentCount,
      JSON.stringify(state.changedTerms),
    ]);
    const lineage = await lineageFor(transaction, state);
    await transaction.execute(INSERT_LINEAGE, [state.compactionId, lineage.lineageId, lineage.lineageParentId, lineage.sequence]);
    const changed = Object.entries(state.changedTerms);
    if (changed.length > 0) {
      await transaction.execute(INSERT_TERMS, [
        lineage.lineageId,
        lineage.sequence,
        changed.map(([term]) => term),
        changed.map(([, frequency]) => frequency),
      ]);
    }
    if (write.nodes.length > 0) {
      await transaction.execute(INSERT_NODES, [
        state.compactionId,
        write.nodes.map((node) => node.nodeId),
        write.nodes.map((node) => node.parentId),
        write.nodes.map((node) => node.kind),
      ]);
    }
    await insertClusters(transaction, state.compactionId, write.clusters);
  });
}

async function getForestState(db: PgExecutor, compactionId: string): Promise<ForestStateRecord | undefined> {
  // jsonb (config, changed terms) comes back parsed.
  const [row] = await db.query<ForestStateRecord>(`SELECT ${FOREST_STATE_COLUMNS} FROM forest_states WHERE compaction_id = $1`, [
    compactionId,
  ]);
  return row;
}

function forestNodes(db: PgExecutor, compactionId: string): Promise<ForestNodeRecord[]> {
  return db.query<ForestNodeRecord>(
    'SELECT node_id AS "nodeId", parent_id AS "parentId", kind FROM forest_nodes WHERE compaction_id = $1 ORDER BY position',
    [compactionId],
  );
}

function forestClusters(db: PgExecutor, compactionId: string): Promise<ForestClusterRecord[]> {
  return db.query<ForestClusterRecord>(
    `SELECT ${CLUSTER_COLUMNS} FROM forest_clusters WHERE compaction_id = $1 ORDER BY position`,
    [compactionId],
  );
}

async function documentFrequencies(
  db: PgExecutor,
  compactionId: string,
  terms: readonly string[],
): Promise<DocumentFrequencies | undefined> {
  const lineage = await lineageOf(db, compactionId);
  if (!lineage) return undefined;
  const result: DocumentFrequencies = { documentCount: lineage.documentCount, frequencies: new Map() };
  const asked = [...new Set(terms)];
  if (asked.length === 0) return result;
  const rows = await db.query<{ term: string; documentFrequency: number }>(TERMS_AT, [compactionId, asked]);
  // In the order asked, as the SQLite engine gives them.
  const found = new Map(rows.map((row) => [row.term, row.documentFrequency]));
  for (const term of asked) {
    const frequency = found.get(term);
    if (frequency !== undefined) result.frequencies.set(term, frequency);
  }
  return result;
}

async function recordTopicDrop(db: PgExecutor, drop: TopicDropRecord): Promise<void> {
  await db.execute('INSERT INTO topic_drops (session_id, cluster_id, dropped, at) VALUES ($1, $2, $3, $4)', [
    drop.sessionId,
    drop.clusterId,
    drop.dropped,
    drop.at,
  ]);
}

async function droppedTopics(db: PgExecutor, sessionId: string): Promise<string[]> {
  // The newest row of each topic decides; topics in the order they were first dropped or restored.
  const rows = await db.query<{ clusterId: string; dropped: boolean }>(
    `SELECT cluster_id AS "clusterId", (array_agg(dropped ORDER BY id DESC))[1] AS dropped
     FROM topic_drops WHERE session_id = $1 GROUP BY cluster_id ORDER BY MIN(id)`,
    [sessionId],
  );
  return rows.filter((row) => row.dropped).map((row) => row.clusterId);
}

function topicDropPage(
  db: PgExecutor,
  { afterPosition, limit }: { afterPosition?: number; limit: number },
): Promise<TopicDropRow[]> {
  return db.query<TopicDropRow>(
    'SELECT id::float8 AS position, session_id AS "sessionId", cluster_id AS "clusterId", dropped, at::float8 AS at ' +
      'FROM topic_drops WHERE id > $1 ORDER BY id LIMIT $2',
    [afterPosition ?? -1, limit],
  );
}

function currentForestCompactions(db: PgExecutor): Promise<Array<{ compactionId: string; metadata: unknown }>> {
  return db.query<{ compactionId: string; metadata: unknown }>(
    `SELECT DISTINCT ON (c.id) c.id AS "compactionId", c.metadata
     FROM agent_sessions s JOIN agent_turns h ON h.id = s.head_turn_id
     JOIN agent_turns c ON c.id = h.latest_compaction_id JOIN forest_states f ON f.compaction_id = c.id
     ORDER BY c.id`,
  );
}

export function forestQueries(db: PgExecutor): ForestStore {
  return {
    writeForest: (write) => writeForest(db, write),
    getForestState: (compactionId) => getForestState(db, compactionId),
    forestNodes: (compactionId) => forestNodes(db, compactionId),
    forestChain: (compactionId) => forestChain(db, compactionId),
    forestClusters: (compactionId) => forestClusters(db, compactionId),
    documentFrequencies: (compactionId, terms) => documentFrequencies(db, compactionId, terms),
    recordTopicDrop: (drop) => recordTopicDrop(db, drop),
    droppedTopics: (sessionId) => droppedTopics(db, sessionId),
    topicDropPage: (page) => topicDropPage(db, page),
    forestIntegrityFindings: (options) => forestIntegrityFindings(db, options),
    currentForestCompactions: () => currentForestCompactions(db),
  };
}
