// The ledger's tables on PostgreSQL, as drizzle sees them: the same tables, columns and indexes as
// ../sqlite/schema.ts, in PostgreSQL's types (JSON as jsonb, flags as boolean, epoch milliseconds
// and running sums as bigint). Migrations in ../../drizzle-postgres are generated from this file by
// drizzle-kit (`pnpm db:generate:postgres`); what drizzle cannot say (append-only triggers, the
// deferred head foreign key) is appended by hand to the generated SQL, and migrate.ts applies it.

import { type SQL, sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** Full-text search's document: the server derives it from `search_text` (a generated column). */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * The tsvector of a row's `search_text`, in the configuration every search query uses. Punctuation
 * (ASCII, and Unicode's general and CJK punctuation blocks) becomes a space first, so the words are
 * SQLite's (FTS5 unicode61 splits on them, and so does core's searchTerms, which makes the query):
 * `dashboard-4471`, `5.7.44`, `redis-quokka-7.staging.internal` and `consumer.ts` are indexed by
 * their parts, not as the single host, version and file tokens PostgreSQL's parser would keep, which
 * no query's words could match (issue 28).
 */
export const SEARCH_PUNCTUATION = '[[:punct:]\\u2000-\\u206F\\u3000-\\u303F]+';
/**
 * The text search configuration: english's parser and Snowball stemmer without its stop words
 * (migration 0006), so `the` or `which` are words here as in SQLite's FTS5 (search-config.ts).
 */
export const SEARCH_CONFIGURATION = 'nexus_english';
function searchVectorOf(): SQL {
  return sql.raw(
    `to_tsvector('${SEARCH_CONFIGURATION}'::regconfig, regexp_replace(coalesce(search_text, ''), '${SEARCH_PUNCTUATION}', ' ', 'g'))`,
  );
}

/** Epoch milliseconds and other counts that may pass 2^31, as JavaScript numbers. */
function bigNumber(name: string) {
  return bigint(name, { mode: 'number' });
}

export const agentSessions = pgTable(
  'agent_sessions',
  {
    id: text('id').primaryKey(),
    label: text('label'),
    /** Deferred to commit (hand-written in the migration): the head moves before its turn is inserted. */
    headTurnId: text('head_turn_id').references((): AnyPgColumn => agentTurns.id),
    parentSessionId: text('parent_session_id').references((): AnyPgColumn => agentSessions.id),
    forkedFromTurnId: text('forked_from_turn_id').references((): AnyPgColumn => agentTurns.id),
    rebuildFromRaw: boolean('rebuild_from_raw').notNull().default(false),
    ignoreCompactionsThroughDepth: integer('ignore_compactions_through_depth'),
    contextWindow: integer('context_window').notNull(),
    reserveTokens: integer('reserve_tokens').notNull(),
    keepRecentTokens: integer('keep_recent_tokens').notNull(),
    compactionStrategy: text('compaction_strategy'),
    calibration: jsonb('calibration'),
    createdAt: bigNumber('created_at').notNull(),
  },
  (table) => [
    index('idx_sessions_parent').on(table.parentSessionId),
    index('idx_sessions_created').on(table.createdAt),
    index('idx_sessions_forked_from').on(table.forkedFromTurnId),
  ],
);

export const agentTurns = pgTable(
  'agent_turns',
  {
    id: text('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => agentSessions.id),
    parentTurnId: text('parent_turn_id').references((): AnyPgColumn => agentTurns.id),
    depth: integer('depth').notNull(),
    role: text('role', { enum: ['user', 'assistant'] }),
    /** json, not jsonb: a turn's blocks read back exactly as written (jsonb reorders object keys). */
    content: json('content'),
    model: text('model'),
    tokenCount: integer('token_count').notNull(),
    timestamp: bigNumber('timestamp').notNull(),
    toolCallCount: integer('tool_call_count').notNull().default(0),
    metadata: json('metadata'),
    turnType: text('turn_type', { enum: ['normal', 'compaction'] })
      .notNull()
      .default('normal'),
    summary: text('summary'),
    summarizedThroughTurnId: text('summarized_through_turn_id').references((): AnyPgColumn => agentTurns.id),
    firstKeptTurnId: text('first_kept_turn_id').references((): AnyPgColumn => agentTurns.id),
    tokensBefore: integer('tokens_before'),
    tokensAfter: integer('tokens_after'),
    trigger: text('trigger', { enum: ['threshold', 'overflow', 'manual'] }),
    strategy: text('strategy'),
    summarizer: text('summarizer'),
    usageInputTokens: integer('usage_input_tokens'),
    usageOutputTokens: integer('usage_output_tokens'),
    latestCompactionId: text('latest_compaction_id').references((): AnyPgColumn => agentTurns.id),
    cumulativeTokens: bigNumber('cumulative_tokens').notNull(),
    searchText: text('search_text'),
    /** What full-text search matches: derived by the server from `search_text`, never written. */
    searchVector: tsvector('search_vector').generatedAlwaysAs(searchVectorOf),
    coversFromDepth: integer('covers_from_depth'),
    previousCompactionId: text('previous_compaction_id').references((): AnyPgColumn => agentTurns.id),
    summarizedThroughDepth: integer('summarized_through_depth'),
    /** The turn's link in its line's hash chain (@agent-ledger/store turnHash); filled for older turns by migration. */
    hash: text('hash'),
  },
  (table) => [
    uniqueIndex('idx_turns_session_depth').on(table.sessionId, table.depth),
    // Partial: only compactions fold in a previous one; a NULL entry per normal turn was one more
    // index page written per append (as on SQLite).
    index('idx_turns_previous_compaction').on(table.previousCompactionId).where(sql`${table.previousCompactionId} IS NOT NULL`),
    index('idx_turns_compaction').on(table.sessionId, table.summarizedThroughDepth).where(sql`${table.turnType} = 'compaction'`),
    index('idx_turns_search').using('gin', table.searchVector),
    /**
     * A search's newest matches are read backwards along these when a word is common (@agent-ledger/store
     * search-bounds.ts), one per turn type: a search of turns never checks a summary's text, nor a
     * search of summaries a turn's (search-plan.ts reads both types apart and merges). Partial, not
     * keyed by type: the planner costs a walk by the first column's correlation with the table's
     * order, which is the timestamp's here and nothing for a turn type.
     */
    index('idx_turns_timestamp_normal').on(table.timestamp).where(sql`${table.turnType} = 'normal'`),
    index('idx_turns_timestamp_compaction').on(table.timestamp).where(sql`${table.turnType} = 'compaction'`),
    check(
      'compaction_fields',
      sql`(${table.turnType} = 'normal' AND ${table.summary} IS NULL AND ${table.role} IS NOT NULL)
       OR (${table.turnType} = 'compaction' AND ${table.summary} IS NOT NULL AND ${table.summarizedThroughTurnId} IS NOT NULL)`,
    ),
    check('no_self_parent', sql`${table.parentTurnId} IS NULL OR ${table.parentTurnId} <> ${table.id}`),
  ],
);

/** The events ledger: append-only (triggers), each row chained to its channel's previous by hash. */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    channel: text('channel').notNull(),
    externalId: text('external_id').notNull(),
    author: text('author'),
    kind: text('kind').notNull(),
    /** Canonical JSON (keys sorted), exactly the bytes the hash covers: text, never jsonb. */
    payload: text('payload').notNull(),
    occurredAt: bigNumber('occurred_at').notNull(),
    receivedAt: bigNumber('received_at').notNull(),
    seq: bigNumber('seq').notNull(),
    prevHash: text('prev_hash'),
    hash: text('hash').notNull(),
    searchText: text('search_text'),
    searchVector: tsvector('search_vector').generatedAlwaysAs(searchVectorOf),
  },
  (table) => [
    uniqueIndex('idx_events_channel_external').on(table.channel, table.externalId),
    uniqueIndex('idx_events_channel_seq').on(table.channel, table.seq),
    index('idx_events_channel_occurred').on(table.channel, table.occurredAt),
    index('idx_events_search').using('gin', table.searchVector),
    /** A search's newest matches are read backwards along it when a word is common (@agent-ledger/store search-bounds.ts). */
    index('idx_events_received').on(table.receivedAt),
    check('seq_positive', sql`${table.seq} >= 1`),
  ],
);

export const turnEvents = pgTable(
  'turn_events',
  {
    turnId: text('turn_id')
      .notNull()
      .references(() => agentTurns.id),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
  },
  (table) => [primaryKey({ columns: [table.turnId, table.eventId] }), index('idx_turn_events_event').on(table.eventId)],
);

export const forestStates = pgTable('forest_states', {
  compactionId: text('compaction_id')
    .primaryKey()
    .references(() => agentTurns.id),
  sessionId: text('session_id')
    .notNull()
    .references(() => agentSessions.id),
  previousCompactionId: text('previous_compaction_id').references((): AnyPgColumn => forestStates.compactionId),
  seedCompactionId: text('seed_compaction_id').references(() => agentTurns.id),
  config: jsonb('config').notNull(),
  clock: bigNumber('clock').notNull(),
  documentCount: bigNumber('document_count').notNull(),
  changedTerms: jsonb('changed_terms').notNull(),
});

export const forestNodes = pgTable(
  'forest_nodes',
  {
    compactionId: text('compaction_id')
      .notNull()
      .references(() => forestStates.compactionId),
    nodeId: text('node_id')
      .notNull()
      .references(() => agentTurns.id),
    parentId: text('parent_id')
      .notNull()
      .references(() => agentTurns.id),
    kind: text('kind', { enum: ['graduated', 'merged'] }).notNull(),
    position: integer('position').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.compactionId, table.nodeId] }),
    check('forest_node_not_compaction', sql`${table.nodeId} <> ${table.compactionId}`),
  ],
);

export const forestClusters = pgTable(
  'forest_clusters',
  {
    compactionId: text('compaction_id')
      .notNull()
      .references(() => forestStates.compactionId),
    rootId: text('root_id')
      .notNull()
      .references(() => agentTurns.id),
    position: integer('position').notNull(),
    members: integer('members').notNull(),
    memberTokens: bigNumber('member_tokens').notNull(),
    summary: text('summary'),
    summaryVersion: integer('summary_version').notNull(),
    block: text('block').notNull(),
    blockTokens: bigNumber('block_tokens').notNull(),
    dirty: boolean('dirty').notNull(),
    pending: jsonb('pending').notNull(),
    absorbedSummaries: jsonb('absorbed_summaries').notNull(),
    centroid: jsonb('centroid').notNull(),
    firstTimestamp: bigNumber('first_timestamp').notNull(),
    lastTimestamp: bigNumber('last_timestamp').notNull(),
    touched: bigNumber('touched').notNull(),
    generation: integer('generation').notNull(),
    dropped: boolean('dropped').notNull(),
  },
  (table) => [primaryKey({ columns: [table.compactionId, table.rootId] })],
);

export const topicDrops = pgTable(
  'topic_drops',
  {
    id: serial('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => agentSessions.id),
    clusterId: text('cluster_id')
      .notNull()
      .references(() => agentTurns.id),
    dropped: boolean('dropped').notNull(),
    at: bigNumber('at').notNull(),
  },
  (table) => [index('idx_topic_drops_session').on(table.sessionId, table.clusterId)],
);

export const transcriptSources = pgTable('transcript_sources', {
  sourceKey: text('source_key').primaryKey(),
  format: text('format').notNull(),
  sessionId: text('session_id')
    .notNull()
    .references(() => agentSessions.id),
  path: text('path'),
  importedAt: bigNumber('imported_at').notNull(),
});

export const transcriptLines = pgTable(
  'transcript_lines',
  {
    sourceKey: text('source_key')
      .notNull()
      .references(() => transcriptSources.sourceKey),
    lineId: text('line_id').notNull(),
    turnId: text('turn_id').references(() => agentTurns.id),
  },
  (table) => [primaryKey({ columns: [table.sourceKey, table.lineId] })],
);

/** How far each transcript file has been read (as on SQLite: a hint for resuming, by path). */
export const transcriptPositions = pgTable('transcript_positions', {
  path: text('path').primaryKey(),
  bytes: bigNumber('bytes').notNull(),
  line: integer('line').notNull(),
  /** A digest of the file's first line: a file replaced by another is read from its start. */
  head: text('head').notNull(),
  updatedAt: bigNumber('updated_at').notNull(),
});

/** One holder at a time for a named piece of work, across processes (as on SQLite). */
export const leases = pgTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: bigNumber('expires_at').notNull(),
});

/** float32 little-endian, as on SQLite: the bytes are the same on both engines. */
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

export const turnEmbeddings = pgTable(
  'turn_embeddings',
  {
    turnId: text('turn_id')
      .notNull()
      .references(() => agentTurns.id),
    model: text('model').notNull(),
    dimensions: integer('dimensions').notNull(),
    vector: bytea('vector').notNull(),
  },
  (table) => [primaryKey({ columns: [table.model, table.turnId] })],
);

export const forestLineages = pgTable(
  'forest_lineages',
  {
    compactionId: text('compaction_id')
      .primaryKey()
      .references(() => forestStates.compactionId),
    lineageId: text('lineage_id').notNull(),
    lineageParentId: text('lineage_parent_id').references(() => forestStates.compactionId),
    sequence: integer('sequence').notNull(),
  },
  (table) => [index('idx_forest_lineages_sequence').on(table.lineageId, table.sequence)],
);

export const forestTerms = pgTable(
  'forest_terms',
  {
    lineageId: text('lineage_id').notNull(),
    term: text('term').notNull(),
    sequence: integer('sequence').notNull(),
    documentFrequency: bigNumber('document_frequency').notNull(),
  },
  (table) => [primaryKey({ columns: [table.lineageId, table.term, table.sequence] })],
);
