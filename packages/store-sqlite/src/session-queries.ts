// Sessions on SQLite: prepared statements over agent_sessions. A session's head moves only with an
// append (turn-queries.ts); here sessions are read, created, and their context settings changed.

import type { SessionRecord, SessionSettingsUpdate, SessionStore } from '@agent-ledger/store';
import { jsonOrNull, parseJson, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

const SESSION_COLUMNS =
  'id, label, head_turn_id AS headTurnId, parent_session_id AS parentSessionId, forked_from_turn_id AS forkedFromTurnId, ' +
  'rebuild_from_raw AS rebuildFromRaw, ignore_compactions_through_depth AS ignoreCompactionsThroughDepth, ' +
  'context_window AS contextWindow, reserve_tokens AS reserveTokens, keep_recent_tokens AS keepRecentTokens, ' +
  'compaction_strategy AS compactionStrategy, calibration, created_at AS createdAt';

type RawRow = Record<string, unknown>;

function decodeSession(row: RawRow): SessionRecord {
  const session = row as unknown as SessionRecord;
  session.rebuildFromRaw = row.rebuildFromRaw === 1 || row.rebuildFromRaw === true;
  session.calibration = parseJson(row.calibration);
  return session;
}

export function getSession(connection: SqliteConnection, sessionId: string): SessionRecord | undefined {
  const row = connection.statement(`SELECT ${SESSION_COLUMNS} FROM agent_sessions WHERE id = ?`).get(sessionId) as
    | RawRow
    | undefined;
  return row ? decodeSession(row) : undefined;
}

function listSessions(connection: SqliteConnection, { limit, offset }: { limit: number; offset: number }): SessionRecord[] {
  return (
    connection
      .statement(`SELECT ${SESSION_COLUMNS} FROM agent_sessions ORDER BY created_at DESC, id ASC LIMIT ? OFFSET ?`)
      .all(limit, offset) as RawRow[]
  ).map(decodeSession);
}

function childSessions(connection: SqliteConnection, sessionId: string): SessionRecord[] {
  return (
    connection
      .statement(`SELECT ${SESSION_COLUMNS} FROM agent_sessions WHERE parent_session_id = ? ORDER BY created_at ASC, id ASC`)
      .all(sessionId) as RawRow[]
  ).map(decodeSession);
}

function insertSession(connection: SqliteConnection, session: SessionRecord): void {
  connection
    .statement(
      'INSERT INTO agent_sessions (id, label, head_turn_id, parent_session_id, forked_from_turn_id, rebuild_from_raw, ' +
        'ignore_compactions_through_depth, context_window, reserve_tokens, keep_recent_tokens, compaction_strategy, ' +
        'calibration, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    .run(
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
}

function updateSessionSettings(
  connection: SqliteConnection,
  sessionId: string,
  update: SessionSettingsUpdate,
): SessionRecord | undefined {
  connection
    .statement(
      'UPDATE agent_sessions SET context_window = ?, reserve_tokens = ?, keep_recent_tokens = ?, calibration = ? WHERE id = ?',
    )
    .run(update.contextWindow, update.reserveTokens, update.keepRecentTokens, jsonOrNull(update.calibration), sessionId);
  return getSession(connection, sessionId);
}

export function sessionQueries(connection: SqliteConnection): Synchronous<SessionStore> {
  return {
    getSession: (sessionId) => getSession(connection, sessionId),
    listSessions: (page) => listSessions(connection, page),
    childSessions: (sessionId) => childSessions(connection, sessionId),
    insertSession: (session) => insertSession(connection, session),
    updateSessionSettings: (sessionId, update) => updateSessionSettings(connection, sessionId, update),
  };
}
