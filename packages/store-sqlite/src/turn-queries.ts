// Sessions and turns on SQLite: prepared statements over agent_sessions, agent_turns and
// turn_events. Turns are append-only (triggers refuse UPDATE and DELETE), so `hasChildren` is read
// from the rows that exist rather than stored: a turn has a child when its own session goes on
// past it, or a fork made at it has turns of its own.

import { StorageError } from '@agent-ledger/core';
import type { SessionRecord, SessionStore, StoredTurn, TurnRecord, TurnStore } from '@agent-ledger/store';
import { chunks, jsonOrNull, parseJson, placeholders, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

const SESSION_COLUMNS =
  'id, label, head_turn_id AS headTurnId, parent_session_id AS parentSessionId, forked_from_turn_id AS forkedFromTurnId, ' +
  'rebuild_from_raw AS rebuildFromRaw, ignore_compactions_through_depth AS ignoreCompactionsThroughDepth, ' +
  'context_window AS contextWindow, reserve_tokens AS reserveTokens, keep_recent_tokens AS keepRecentTokens, ' +
  'compaction_strategy AS compactionStrategy, calibration, created_at AS createdAt';

/** Turn columns as TurnRecord names, for a table aliased `t`. */
const TURN_COLUMNS =
  't.id, t.session_id AS sessionId, t.parent_turn_id AS parentTurnId, t.depth, t.role, t.content, t.model, ' +
  't.token_count AS tokenCount, t.timestamp, t.tool_call_count AS toolCallCount, t.metadata, t.turn_type AS turnType, ' +
  't.summary, t.summarized_through_turn_id AS summarizedThroughTurnId, t.first_kept_turn_id AS firstKeptTurnId, ' +
  't.tokens_before AS tokensBefore, t.tokens_after AS tokensAfter, t.trigger, t.strategy, t.summarizer, ' +
  't.usage_input_tokens AS usageInputTokens, t.usage_output_tokens AS usageOutputTokens, ' +
  't.latest_compaction_id AS latestCompactionId, t.cumulative_tokens AS cumulativeTokens, t.search_text AS searchText, ' +
  't.covers_from_depth AS coversFromDepth, t.previous_compaction_id AS previousCompactionId, ' +
  't.summarized_through_depth AS summarizedThroughDepth, ' +
  '(EXISTS (SELECT 1 FROM agent_turns c WHERE c.session_id = t.session_id AND c.depth = t.depth + 1) ' +
  ' OR EXISTS (SELECT 1 FROM agent_sessions f WHERE f.forked_from_turn_id = t.id AND f.head_turn_id IS NOT t.id)) AS hasChildren';

const INSERT_TURN =
  'INSERT INTO agent_turns (id, session_id, parent_turn_id, depth, role, content, model, token_count, timestamp, ' +
  'tool_call_count, metadata, turn_type, summary, summarized_through_turn_id, first_kept_turn_id, tokens_before, ' +
  'tokens_after, trigger, strategy, summarizer, usage_input_tokens, usage_output_tokens, latest_compaction_id, ' +
  'cumulative_tokens, search_text, covers_from_depth, previous_compaction_id, summarized_through_depth) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

type RawRow = Record<string, unknown>;

function decodeTurn(row: RawRow): StoredTurn {
  const turn = row as unknown as StoredTurn;
  turn.content = parseJson(row.content);
  turn.metadata = parseJson(row.metadata);
  turn.hasChildren = row.hasChildren === 1 || row.hasChildren === true;
  return turn;
}

function decodeSession(row: RawRow): SessionRecord {
  const session = row as unknown as SessionRecord;
  session.rebuildFromRaw = row.rebuildFromRaw === 1 || row.rebuildFromRaw === true;
  session.calibration = parseJson(row.calibration);
  return session;
}

function turnParameters(turn: TurnRecord): unknown[] {
  return [
    turn.id,
    turn.sessionId,
    turn.parentTurnId,
    turn.depth,
    turn.role,
    jsonOrNull(turn.content),
    turn.model,
    turn.tokenCount,
    turn.timestamp,
    turn.toolCallCount,
    jsonOrNull(turn.metadata),
    turn.turnType,
    turn.summary,
    turn.summarizedThroughTurnId,
    turn.firstKeptTurnId,
    turn.tokensBefore,
    turn.tokensAfter,
    turn.trigger,
    turn.strategy,
    turn.summarizer,
    turn.usageInputTokens,
    turn.usageOutputTokens,
    turn.latestCompactionId,
    turn.cumulativeTokens,
    turn.searchText,
    turn.coversFromDepth,
    turn.previousCompactionId,
    turn.summarizedThroughDepth,
  ];
}

export function turnQueries(connection: SqliteConnection): Synchronous<SessionStore & TurnStore> {
  const { sqlite, statement } = connection;

  const getTurn = (turnId: string) => {
    const row = statement(`SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.id = ?`).get(turnId) as RawRow | undefined;
    return row ? decodeTurn(row) : undefined;
  };
  const getSession = (sessionId: string) => {
    const row = statement(`SELECT ${SESSION_COLUMNS} FROM agent_sessions WHERE id = ?`).get(sessionId) as RawRow | undefined;
    return row ? decodeSession(row) : undefined;
  };
  const insertTurn = (turn: TurnRecord) => statement(INSERT_TURN).run(turnParameters(turn));
  const moveHead = (sessionId: string, expected: string | null, next: string) =>
    statement('UPDATE agent_sessions SET head_turn_id = ? WHERE id = ? AND head_turn_id IS ?').run(next, sessionId, expected)
      .changes === 1;
  const insertLink = (turnId: string, eventId: string) =>
    statement('INSERT OR IGNORE INTO turn_events (turn_id, event_id) VALUES (?, ?)').run(turnId, eventId);

  const appendToSession = sqlite.transaction((append: Parameters<Synchronous<TurnStore>['appendToSession']>[0]) => {
    const last = append.turns.at(-1);
    if (!last) return { written: true as const };
    // The write lock is held from BEGIN IMMEDIATE: the head read here cannot move before the
    // update below. A writer that lost the race writes nothing at all.
    const current = statement('SELECT head_turn_id AS headTurnId FROM agent_sessions WHERE id = ?').get(append.sessionId) as
      | { headTurnId: string | null }
      | undefined;
    if (!current || current.headTurnId !== append.expectedHeadTurnId)
      return { written: false as const, actualHeadTurnId: current?.headTurnId ?? null };
    for (const turn of append.turns) insertTurn(turn);
    for (const link of append.eventLinks ?? []) insertLink(link.turnId, link.eventId);
    if (!moveHead(append.sessionId, append.expectedHeadTurnId, last.id))
      throw new StorageError('The session head moved inside a transaction.');
    return { written: true as const };
  });

  return {
    getSession,
    listSessions: ({ limit, offset }) =>
      (
        statement(`SELECT ${SESSION_COLUMNS} FROM agent_sessions ORDER BY created_at DESC, id ASC LIMIT ? OFFSET ?`).all(
          limit,
          offset,
        ) as RawRow[]
      ).map(decodeSession),
    childSessions: (sessionId) =>
      (
        statement(
          `SELECT ${SESSION_COLUMNS} FROM agent_sessions WHERE parent_session_id = ? ORDER BY created_at ASC, id ASC`,
        ).all(sessionId) as RawRow[]
      ).map(decodeSession),
    insertSession: (session) => {
      statement(
        'INSERT INTO agent_sessions (id, label, head_turn_id, parent_session_id, forked_from_turn_id, rebuild_from_raw, ' +
          'ignore_compactions_through_depth, context_window, reserve_tokens, keep_recent_tokens, compaction_strategy, ' +
          'calibration, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        session.id,
        session.label,
        session.headTurnId,
        session.parentSessionId,
        session.forkedFromTurnId,
        session.rebuildFromRaw ? 1 : 0,
        session.ignoreCompactionsThroughDepth,
        session.contextWindow,
        session.reserveTokens,
        session.keepRecentTokens,
        session.compactionStrategy,
        jsonOrNull(session.calibration),
        session.createdAt,
      );
    },
    updateSessionSettings: (sessionId, update) => {
      statement(
        'UPDATE agent_sessions SET context_window = ?, reserve_tokens = ?, keep_recent_tokens = ?, calibration = ? WHERE id = ?',
      ).run(update.contextWindow, update.reserveTokens, update.keepRecentTokens, jsonOrNull(update.calibration), sessionId);
      return getSession(sessionId);
    },

    getTurn,
    getTurns: (turnIds) => {
      const found = new Map<string, StoredTurn>();
      for (const chunk of chunks([...new Set(turnIds)])) {
        const rows = sqlite.prepare(`SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.id IN (${placeholders(chunk.length)})`);
        for (const row of rows.all(...chunk) as RawRow[]) found.set(row.id as string, decodeTurn(row));
      }
      return found;
    },
    chainPage: ({ sessionId, fromDepth, toDepth, newestFirst, limit }) =>
      (
        statement(
          `SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.session_id = ? AND t.depth BETWEEN ? AND ? ` +
            `ORDER BY t.depth ${newestFirst ? 'DESC' : 'ASC'} LIMIT ?`,
        ).all(sessionId, fromDepth, toDepth, limit ?? -1) as RawRow[]
      ).map(decodeTurn),
    appendToSession: (append) => appendToSession.immediate(append),
    compactionsFolding: (compactionId) =>
      (
        statement(`SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.previous_compaction_id = ? ORDER BY t.depth`).all(
          compactionId,
        ) as RawRow[]
      ).map(decodeTurn),
    compactionCovering: ({ sessionId, depth, maxDepth, aboveDepth }) => {
      const row = statement(
        `SELECT ${TURN_COLUMNS} FROM agent_turns t WHERE t.session_id = ? AND t.turn_type = 'compaction' ` +
          'AND t.summarized_through_depth >= ? AND t.covers_from_depth <= ? AND t.depth <= ? AND t.depth > ? ' +
          'ORDER BY t.summarized_through_depth ASC LIMIT 1',
      ).get(sessionId, depth, depth, maxDepth, aboveDepth) as RawRow | undefined;
      return row ? decodeTurn(row) : undefined;
    },
    eventIdsByTurn: (turnIds) => {
      const links = new Map<string, string[]>();
      for (const chunk of chunks(turnIds)) {
        const rows = sqlite
          .prepare(
            `SELECT turn_id AS turnId, event_id AS eventId FROM turn_events WHERE turn_id IN (${placeholders(chunk.length)})`,
          )
          .all(...chunk) as Array<{ turnId: string; eventId: string }>;
        for (const row of rows) {
          const list = links.get(row.turnId);
          if (list) list.push(row.eventId);
          else links.set(row.turnId, [row.eventId]);
        }
      }
      return links;
    },
    turnsCitingEvent: (eventId) =>
      (
        statement(
          'SELECT l.turn_id AS turnId FROM turn_events l JOIN agent_turns t ON t.id = l.turn_id WHERE l.event_id = ? ORDER BY t.timestamp, t.id',
        ).all(eventId) as Array<{ turnId: string }>
      ).map((row) => row.turnId),
    missingEventIds: (eventIds) => {
      const found = new Set<string>();
      for (const chunk of chunks([...new Set(eventIds)])) {
        for (const row of sqlite
          .prepare(`SELECT id FROM events WHERE id IN (${placeholders(chunk.length)})`)
          .all(...chunk) as Array<{
          id: string;
        }>)
          found.add(row.id);
      }
      return eventIds.filter((id) => !found.has(id));
    },
  };
}
