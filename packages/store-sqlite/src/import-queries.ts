// Transcript imports on SQLite: transcript_sources and transcript_lines, whose primary key
// (source_key, line_id) makes each lookup one index probe, and transcript_positions (where the next
// import of a file resumes).

import type { ImportStore, TranscriptLineRecord, TranscriptPosition, TranscriptSourceRecord } from '@agent-ledger/store';
import { chunks, placeholders, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

function getTranscriptSource(connection: SqliteConnection, key: string): TranscriptSourceRecord | undefined {
  return connection
    .statement(
      'SELECT source_key AS key, format, session_id AS sessionId, path, imported_at AS importedAt FROM transcript_sources WHERE source_key = ?',
    )
    .get(key) as TranscriptSourceRecord | undefined;
}

function insertTranscriptSource(connection: SqliteConnection, source: TranscriptSourceRecord): void {
  connection
    .statement('INSERT INTO transcript_sources (source_key, format, session_id, path, imported_at) VALUES (?, ?, ?, ?, ?)')
    .run(source.key, source.format, source.sessionId, source.path, source.importedAt);
}

function transcriptLineTurns(connection: SqliteConnection, key: string, lineIds: readonly string[]): Map<string, string | null> {
  const found = new Map<string, string | null>();
  if (lineIds.length === 1) {
    // The common case (one line per entry): a cached statement.
    const row = connection
      .statement('SELECT turn_id AS turnId FROM transcript_lines WHERE source_key = ? AND line_id = ?')
      .get(key, lineIds[0]) as { turnId: string | null } | undefined;
    if (row) found.set(lineIds[0] as string, row.turnId);
    return found;
  }
  for (const chunk of chunks([...new Set(lineIds)])) {
    const rows = connection.sqlite
      .prepare(
        `SELECT line_id AS lineId, turn_id AS turnId FROM transcript_lines WHERE source_key = ? AND line_id IN (${placeholders(chunk.length)})`,
      )
      .all(key, ...chunk) as Array<{ lineId: string; turnId: string | null }>;
    for (const row of rows) found.set(row.lineId, row.turnId);
  }
  return found;
}

function insertTranscriptLine(connection: SqliteConnection, key: string, line: TranscriptLineRecord): void {
  connection
    .statement('INSERT OR IGNORE INTO transcript_lines (source_key, line_id, turn_id) VALUES (?, ?, ?)')
    .run(key, line.lineId, line.turnId);
}

/** Records a file's lines all or none; inside a store transaction better-sqlite3 makes this a savepoint. */
function recordLinesTransaction(connection: SqliteConnection) {
  return connection.sqlite.transaction((key: string, lines: readonly TranscriptLineRecord[]) => {
    for (const line of lines) insertTranscriptLine(connection, key, line);
  });
}

function transcriptSourcePage(
  connection: SqliteConnection,
  { afterKey, limit }: { afterKey?: string; limit: number },
): TranscriptSourceRecord[] {
  return (
    afterKey === undefined
      ? connection
          .statement(
            'SELECT source_key AS key, format, session_id AS sessionId, path, imported_at AS importedAt FROM transcript_sources ' +
              'ORDER BY source_key LIMIT ?',
          )
          .all(limit)
      : connection
          .statement(
            'SELECT source_key AS key, format, session_id AS sessionId, path, imported_at AS importedAt FROM transcript_sources ' +
              'WHERE source_key > ? ORDER BY source_key LIMIT ?',
          )
          .all(afterKey, limit)
  ) as TranscriptSourceRecord[];
}

function transcriptLinePage(
  connection: SqliteConnection,
  key: string,
  { afterLineId, limit }: { afterLineId?: string; limit: number },
): TranscriptLineRecord[] {
  return (
    afterLineId === undefined
      ? connection
          .statement(
            'SELECT line_id AS lineId, turn_id AS turnId FROM transcript_lines WHERE source_key = ? ORDER BY line_id LIMIT ?',
          )
          .all(key, limit)
      : connection
          .statement(
            'SELECT line_id AS lineId, turn_id AS turnId FROM transcript_lines WHERE source_key = ? AND line_id > ? ' +
              'ORDER BY line_id LIMIT ?',
          )
          .all(key, afterLineId, limit)
  ) as TranscriptLineRecord[];
}

function turnAtTime(connection: SqliteConnection, sessionId: string, time: number): string | undefined {
  return (
    connection
      .statement(
        "SELECT id FROM agent_turns WHERE session_id = ? AND turn_type = 'normal' AND timestamp <= ? ORDER BY depth DESC LIMIT 1",
      )
      .get(sessionId, time) as { id: string } | undefined
  )?.id;
}

function getTranscriptPosition(connection: SqliteConnection, path: string): TranscriptPosition | undefined {
  return connection
    .statement('SELECT path, bytes, line, head, updated_at AS updatedAt FROM transcript_positions WHERE path = ?')
    .get(path) as TranscriptPosition | undefined;
}

function putTranscriptPosition(connection: SqliteConnection, position: TranscriptPosition): void {
  connection
    .statement(
      'INSERT INTO transcript_positions (path, bytes, line, head, updated_at) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes, line = excluded.line, head = excluded.head, ' +
        'updated_at = excluded.updated_at',
    )
    .run(position.path, position.bytes, position.line, position.head, position.updatedAt);
}

export function importQueries(connection: SqliteConnection): Synchronous<ImportStore> {
  const recordLines = recordLinesTransaction(connection);
  return {
    getTranscriptSource: (key) => getTranscriptSource(connection, key),
    insertTranscriptSource: (source) => insertTranscriptSource(connection, source),
    transcriptLineTurns: (key, lineIds) => transcriptLineTurns(connection, key, lineIds),
    recordTranscriptLines: (key, lines) => {
      if (lines.length > 0) recordLines.immediate(key, lines);
    },
    transcriptSourcePage: (page) => transcriptSourcePage(connection, page),
    transcriptLinePage: (key, page) => transcriptLinePage(connection, key, page),
    turnAtTime: (sessionId, time) => turnAtTime(connection, sessionId, time),
    getTranscriptPosition: (path) => getTranscriptPosition(connection, path),
    putTranscriptPosition: (position) => putTranscriptPosition(connection, position),
  };
}
