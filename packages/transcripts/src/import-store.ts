// The record of what was imported: transcript_sources (source session → ledger session) and
// transcript_lines (source line → turn), read and written with statements prepared once per
// database. The primary key (source_key, line_id) makes each lookup one index probe, so a re-run
// over a transcript costs O(lines), whatever the ledger holds.

import type { AgentsLedger } from '@nexus/agents-ledger';

type Sqlite = AgentsLedger['database']['sqlite'];

export interface SourceRecord {
  sessionId: string;
  format: string;
  path: string | null;
}

export interface ImportStore {
  source(key: string): SourceRecord | undefined;
  addSource(key: string, format: string, sessionId: string, path: string, at: number): void;
  /** The turn holding a line; null for a known line before any turn; undefined for an unknown line. */
  lineTurn(key: string, lineId: string): string | null | undefined;
  addLine(key: string, lineId: string, turnId: string | null): void;
  /** The newest turn of a session at or before a time (for a subagent's fork point). */
  turnAtTime(sessionId: string, time: number): string | undefined;
  begin(): void;
  commit(): void;
  rollback(): void;
}

const stores = new WeakMap<Sqlite, ImportStore>();

export function importStore(ledger: AgentsLedger): ImportStore {
  const sqlite = ledger.database.sqlite;
  const cached = stores.get(sqlite);
  if (cached) return cached;
  const selectSource = sqlite.prepare(
    'SELECT session_id AS sessionId, format, path FROM transcript_sources WHERE source_key = ?',
  );
  const insertSource = sqlite.prepare(
    'INSERT INTO transcript_sources (source_key, format, session_id, path, imported_at) VALUES (?, ?, ?, ?, ?)',
  );
  const selectLine = sqlite.prepare('SELECT turn_id AS turnId FROM transcript_lines WHERE source_key = ? AND line_id = ?');
  const insertLine = sqlite.prepare('INSERT OR IGNORE INTO transcript_lines (source_key, line_id, turn_id) VALUES (?, ?, ?)');
  const selectTurnAtTime = sqlite.prepare(
    `SELECT id FROM agent_turns WHERE session_id = ? AND turn_type = 'normal' AND timestamp <= ? ORDER BY depth DESC LIMIT 1`,
  );
  const store: ImportStore = {
    source: (key) => selectSource.get(key) as SourceRecord | undefined,
    addSource: (key, format, sessionId, path, at) => insertSource.run(key, format, sessionId, path, at),
    lineTurn: (key, lineId) => (selectLine.get(key, lineId) as { turnId: string | null } | undefined)?.turnId,
    addLine: (key, lineId, turnId) => insertLine.run(key, lineId, turnId),
    turnAtTime: (sessionId, time) => (selectTurnAtTime.get(sessionId, time) as { id: string } | undefined)?.id,
    begin: () => sqlite.exec('BEGIN IMMEDIATE'),
    commit: () => sqlite.exec('COMMIT'),
    rollback: () => {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    },
  };
  stores.set(sqlite, store);
  return store;
}
