// The tables of the agents ledger, as drizzle sees them. Migrations in ../drizzle are generated
// from this file by drizzle-kit (`pnpm db:generate`); never edit a generated migration by hand.

import { sql } from 'drizzle-orm';
import {
  type AnySQLiteColumn,
  blob,
  check,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

export const agentSessions = sqliteTable(
  'agent_sessions',
  {
    id: text('id').primaryKey(),
    label: text('label'),
    headTurnId: text('head_turn_id').references((): AnySQLiteColumn => agentTurns.id),
    parentSessionId: text('parent_session_id').references((): AnySQLiteColumn => agentSessions.id),
    forkedFromTurnId: text('forked_from_turn_id').references((): AnySQLiteColumn => agentTurns.id),
    rebuildFromRaw: integer('rebuild_from_raw', { mode: 'boolean' }).notNull().default(false),
    /**
     * Compactions at a depth less than or equal to this are ignored in this session's view: set for
     * a fork made with `full` (its fork point's depth) and inherited by forks of it. Null: none.
     */
    ignoreCompactionsThroughDepth: integer('ignore_compactions_through_depth'),
    contextWindow: integer('context_window').notNull(),
    reserveTokens: integer('reserve_tokens').notNull(),
    keepRecentTokens: integer('keep_recent_tokens').notNull(),
    /** The compaction strategy this session uses when none is named; null: the ledger's default. */
    compactionStrategy: text('compaction_strategy'),
    /**
     * What a model API said about this session's real window (JSON, see `SessionCalibration` in
     * core): set when a "prompt is too long" error showed the settings above were too large, so a
     * restart keeps the learned limit. Null: never calibrated.
     */
    calibration: text('calibration', { mode: 'json' }),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [
    index('idx_sessions_parent').on(table.parentSessionId),
    index('idx_sessions_created').on(table.createdAt),
    index('idx_sessions_forked_from').on(table.forkedFromTurnId),
  ],
);

export const agentTurns = sqliteTable(
  'agent_turns',
  {
    id: text('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => agentSessions.id),
    parentTurnId: text('parent_turn_id').references((): AnySQLiteColumn => agentTurns.id),
    depth: integer('depth').notNull(),

    // Standard fields (the spec's query/response pair is one message per turn: see docs/data-model.md)
    role: text('role', { enum: ['user', 'assistant'] }),
    content: text('content', { mode: 'json' }),
    model: text('model'),
    tokenCount: integer('token_count').notNull(),
    timestamp: integer('timestamp').notNull(),
    toolCallCount: integer('tool_call_count').notNull().default(0),
    metadata: text('metadata', { mode: 'json' }),

    // Compaction fields (null for normal turns)
    turnType: text('turn_type', { enum: ['normal', 'compaction'] })
      .notNull()
      .default('normal'),
    summary: text('summary'),
    summarizedThroughTurnId: text('summarized_through_turn_id').references((): AnySQLiteColumn => agentTurns.id),
    firstKeptTurnId: text('first_kept_turn_id').references((): AnySQLiteColumn => agentTurns.id),
    tokensBefore: integer('tokens_before'),
    tokensAfter: integer('tokens_after'),
    trigger: text('trigger', { enum: ['threshold', 'overflow', 'manual'] }),
    strategy: text('strategy'),
    summarizer: text('summarizer'),
    usageInputTokens: integer('usage_input_tokens'),
    usageOutputTokens: integer('usage_output_tokens'),

    // Derived on write so that reads never walk the whole history:
    /** The nearest compaction at or above this turn in its parent chain (itself, for a compaction). */
    latestCompactionId: text('latest_compaction_id').references((): AnySQLiteColumn => agentTurns.id),
    /** Sum of token_count of the normal turns from the root through this one. */
    cumulativeTokens: integer('cumulative_tokens').notNull(),
    /** The text full-text search indexes (message text, or the summary); derived on write. */
    searchText: text('search_text'),
    /** For compactions: the depth range of the chain the summary stands in for. */
    coversFromDepth: integer('covers_from_depth'),
    /** For compactions: the compaction whose summary this one folded in. */
    previousCompactionId: text('previous_compaction_id').references((): AnySQLiteColumn => agentTurns.id),
    summarizedThroughDepth: integer('summarized_through_depth'),
    /** The turn's link in its line's hash chain (@agent-ledger/store turnHash); filled for older turns by migration. */
    hash: text('hash'),
  },
  (table) => [
    uniqueIndex('idx_turns_session_depth').on(table.sessionId, table.depth),
    // Partial: only compactions fold in a previous one, and indexing every normal turn's NULL cost an
    // index page written per append (about 9 µs of ~100, scripts/bench append rows).
    index('idx_turns_previous_compaction').on(table.previousCompactionId).where(sql`${table.previousCompactionId} IS NOT NULL`),
    index('idx_turns_compaction').on(table.sessionId, table.summarizedThroughDepth).where(sql`${table.turnType} = 'compaction'`),
    check(
      'compaction_fields',
      sql`(${table.turnType} = 'normal' AND ${table.summary} IS NULL AND ${table.role} IS NOT NULL)
       OR (${table.turnType} = 'compaction' AND ${table.summary} IS NOT NULL AND ${table.summarizedThroughTurnId} IS NOT NULL)`,
    ),
    check('no_self_parent', sql`${table.parentTurnId} IS NULL OR ${table.parentTurnId} <> ${table.id}`),
  ],
);

/**
 * The events ledger: what arrived from outside. Rows are never updated or deleted — triggers in
 * migration 0002 refuse both — and each carries the hash of the previous event of its channel.
 */
export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    channel: text('channel').notNull(),
    externalId: text('external_id').notNull(),
    author: text('author'),
    kind: text('kind').notNull(),
    /** Canonical JSON (keys sorted), exactly the bytes the hash covers. */
    payload: text('payload').notNull(),
    occurredAt: integer('occurred_at').notNull(),
    receivedAt: integer('received_at').notNull(),
    /** 1, 2, 3, … within the channel, without gaps. */
    seq: integer('seq').notNull(),
    prevHash: text('prev_hash'),
    hash: text('hash').notNull(),
    /** The text full-text search indexes (author and the payload's strings); derived, not hashed. */
    searchText: text('search_text'),
  },
  (table) => [
    uniqueIndex('idx_events_channel_external').on(table.channel, table.externalId),
    uniqueIndex('idx_events_channel_seq').on(table.channel, table.seq),
    index('idx_events_channel_occurred').on(table.channel, table.occurredAt),
    check('seq_positive', sql`${table.seq} >= 1`),
  ],
);

/** Which events a turn cites (the inbound message it answers, say); written with the turn. */
export const turnEvents = sqliteTable(
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

/**
 * A compaction's forest, as of that compaction turn. Rows are written once, with the
 * compaction, and never changed: a forest is the chain of these rows through `previous_compaction_id`,
 * so a fork that compacts writes its own rows and the source session's forest is untouched.
 */
export const forestStates = sqliteTable('forest_states', {
  compactionId: text('compaction_id')
    .primaryKey()
    .references(() => agentTurns.id),
  sessionId: text('session_id')
    .notNull()
    .references(() => agentSessions.id),
  /** The compaction whose forest this one continues; null: a fresh forest. */
  previousCompactionId: text('previous_compaction_id').references((): AnySQLiteColumn => forestStates.compactionId),
  /** A compaction without a forest of its own whose summary entered this forest as its first node, if any. */
  seedCompactionId: text('seed_compaction_id').references(() => agentTurns.id),
  config: text('config', { mode: 'json' }).notNull(),
  clock: integer('clock').notNull(),
  /** TF-IDF: documents counted so far, and the document frequency of each term changed by this compaction. */
  documentCount: integer('document_count').notNull(),
  changedTerms: text('changed_terms', { mode: 'json' }).notNull(),
});

/** Parent pointers written by a compaction: a turn graduating (`graduated`) or a root merged away (`merged`). */
export const forestNodes = sqliteTable(
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
    /** Order of the writes within the compaction. */
    position: integer('position').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.compactionId, table.nodeId] }),
    check('forest_node_not_compaction', sql`${table.nodeId} <> ${table.compactionId}`),
  ],
);

/** Every cluster of the forest as of a compaction (a snapshot: at most the cap plus dropped ones). */
export const forestClusters = sqliteTable(
  'forest_clusters',
  {
    compactionId: text('compaction_id')
      .notNull()
      .references(() => forestStates.compactionId),
    rootId: text('root_id')
      .notNull()
      .references(() => agentTurns.id),
    /** Stable root order (insertion order). */
    position: integer('position').notNull(),
    members: integer('members').notNull(),
    memberTokens: integer('member_tokens').notNull(),
    summary: text('summary'),
    summaryVersion: integer('summary_version').notNull(),
    /** The cluster as injected in a context (header with provenance, summary, any lines not folded in yet). */
    block: text('block').notNull(),
    blockTokens: integer('block_tokens').notNull(),
    dirty: integer('dirty', { mode: 'boolean' }).notNull(),
    pending: text('pending', { mode: 'json' }).notNull(),
    absorbedSummaries: text('absorbed_summaries', { mode: 'json' }).notNull(),
    centroid: text('centroid', { mode: 'json' }).notNull(),
    firstTimestamp: integer('first_timestamp').notNull(),
    lastTimestamp: integer('last_timestamp').notNull(),
    touched: integer('touched').notNull(),
    generation: integer('generation').notNull(),
    dropped: integer('dropped', { mode: 'boolean' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.compactionId, table.rootId] })],
);

/** Drops and restores of a topic in a session, newest last; the newest row for a topic decides. */
export const topicDrops = sqliteTable(
  'topic_drops',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id')
      .notNull()
      .references(() => agentSessions.id),
    clusterId: text('cluster_id')
      .notNull()
      .references(() => agentTurns.id),
    dropped: integer('dropped', { mode: 'boolean' }).notNull(),
    at: integer('at').notNull(),
  },
  (table) => [index('idx_topic_drops_session').on(table.sessionId, table.clusterId)],
);

export type ForestStateRow = typeof forestStates.$inferSelect;
export type ForestClusterRow = typeof forestClusters.$inferSelect;

export type EventRow = typeof events.$inferSelect;

export type AgentSessionRow = typeof agentSessions.$inferSelect;
export type AgentTurnRow = typeof agentTurns.$inferSelect;
export type NewAgentTurnRow = typeof agentTurns.$inferInsert;

/**
 * A transcript imported from another tool (a Claude Code, Codex or pi session file): the ledger
 * session it became, so a re-import finds it again.
 */
export const transcriptSources = sqliteTable('transcript_sources', {
  /** Format and the source's own session id: `claude-code:<sessionId>`, `codex:<id>`, `pi:<id>`. */
  sourceKey: text('source_key').primaryKey(),
  format: text('format').notNull(),
  sessionId: text('session_id')
    .notNull()
    .references(() => agentSessions.id),
  path: text('path'),
  importedAt: integer('imported_at').notNull(),
});

/**
 * Each imported source line (by its id in the source, or its line number where it has none) and the
 * turn that holds it, so a re-import skips it and a later line can name it as its parent. The
 * primary key is the lookup index: a re-run costs one indexed read per line.
 */
export const transcriptLines = sqliteTable(
  'transcript_lines',
  {
    sourceKey: text('source_key')
      .notNull()
      .references(() => transcriptSources.sourceKey),
    lineId: text('line_id').notNull(),
    /** The turn holding the line, or the nearest turn before it for a line that adds none (null before the first). */
    turnId: text('turn_id').references(() => agentTurns.id),
  },
  (table) => [primaryKey({ columns: [table.sourceKey, table.lineId] })],
);

/**
 * How far each transcript file has been read (by path): the byte offset and line number where the
 * next import resumes, so a re-import reads only what the tool appended since. A hint, never the
 * record of what was imported (transcript_lines is): an import that finds it wrong reads the whole file.
 */
export const transcriptPositions = sqliteTable('transcript_positions', {
  path: text('path').primaryKey(),
  bytes: integer('bytes').notNull(),
  line: integer('line').notNull(),
  /** A digest of the file's first line: a file replaced by another is read from its start. */
  head: text('head').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * Leases: one holder at a time for a named piece of work (an import of one transcript file, say),
 * across processes. Taken when free or expired; a crashed holder's lease expires on its own.
 */
export const leases = sqliteTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: integer('expires_at').notNull(),
});

/**
 * Embedding vectors of turns, for recall with an Embedder (agents-ledger retrieval/turn-vectors.ts):
 * one per turn and model, float32 little-endian in a blob. Written the first time a context needs
 * them; the model is part of the key, so vectors of two models are never compared.
 */
export const turnEmbeddings = sqliteTable(
  'turn_embeddings',
  {
    turnId: text('turn_id')
      .notNull()
      .references(() => agentTurns.id),
    model: text('model').notNull(),
    dimensions: integer('dimensions').notNull(),
    vector: blob('vector', { mode: 'buffer' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.model, table.turnId] })],
);

/**
 * Where each stored forest sits in its line of forests (agents-ledger topics): forests continuing
 * one another in one session share a lineage, numbered by `sequence`; a forest continuing another
 * lineage's (a fork's first, say) starts a lineage whose parent is the forest it continues. Written
 * once, with the forest.
 */
export const forestLineages = sqliteTable(
  'forest_lineages',
  {
    compactionId: text('compaction_id')
      .primaryKey()
      .references(() => forestStates.compactionId),
    lineageId: text('lineage_id').notNull(),
    /** The forest this lineage continues (in another lineage), or null for a fresh forest. */
    lineageParentId: text('lineage_parent_id').references(() => forestStates.compactionId),
    sequence: integer('sequence').notNull(),
  },
  (table) => [index('idx_forest_lineages_sequence').on(table.lineageId, table.sequence)],
);

/**
 * The cumulative document frequency of a term as each forest of a lineage changed it: the
 * frequency as of a forest is the row of its lineage with the largest sequence at or below its
 * own (one index seek per term, whatever the number of compactions).
 */
export const forestTerms = sqliteTable(
  'forest_terms',
  {
    lineageId: text('lineage_id').notNull(),
    term: text('term').notNull(),
    sequence: integer('sequence').notNull(),
    documentFrequency: integer('document_frequency').notNull(),
  },
  (table) => [primaryKey({ columns: [table.lineageId, table.term, table.sequence] })],
);
