// The tables of the agents ledger, as drizzle sees them. Migrations in ../drizzle are generated
// from this file by drizzle-kit (`pnpm db:generate`); never edit a generated migration by hand.

import { sql } from 'drizzle-orm';
import { type AnySQLiteColumn, check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

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
    createdAt: integer('created_at').notNull(),
  },
  (table) => [index('idx_sessions_parent').on(table.parentSessionId), index('idx_sessions_created').on(table.createdAt)],
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
    hasChildren: integer('has_children', { mode: 'boolean' }).notNull().default(false),
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
  },
  (table) => [
    index('idx_turns_session_depth').on(table.sessionId, table.depth),
    index('idx_turns_previous_compaction').on(table.previousCompactionId),
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

export type EventRow = typeof events.$inferSelect;

export type AgentSessionRow = typeof agentSessions.$inferSelect;
export type AgentTurnRow = typeof agentTurns.$inferSelect;
export type NewAgentTurnRow = typeof agentTurns.$inferInsert;
