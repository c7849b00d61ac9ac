// Transcript imports on SQLite: transcript_sources and transcript_lines, whose primary key
// (source_key, line_id) makes each lookup one index probe, and transcript_positions (where the next
// import of a file resumes).

import type { ImportStore, TranscriptLineRecord, TranscriptPosition, TranscriptSourceRecord } from '@agent-ledger/store';
import { chunks, placeholders, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

export function importQueries(connection: SqliteConnection): Synchronous<ImportStore> {
  const { sqlite, statement } = connection;
  const insertLine = (key: string, lineId: string, turnId: string | null) =>
    statement('INSERT OR IGNORE INTO transcript_lines (source_key, line_id, turn_id) VALUES (?, ?, ?)').run(key, lineId, turnId);
  // All or none; inside a store transaction better-sqlite3 makes this a savepoint.
  const recordLines = sqlite.transaction(
    (key: string, lines: Parameters<Synchronous<ImportStore>['recordTranscriptLines']>[1]) => {
      for (const line of lines) insertLine(key, line.lineId, line.turnId);
    },
  );

  return {
    getTranscriptSource: (key) =>
      statement(
        'SELECT source_key AS key, format, session_id AS sessionId, path, imported_at AS importedAt FROM transcript_sources WHERE source_key = ?',
      ).get(key) as TranscriptSourceRecord | undefined,
    insertTranscriptSource: (source) => {
      statement('INSERT INTO transcript_sources (source_key, format, session_id, path, imported_at) VALUES (?, ?, ?, ?, ?)').run(
        source.key,
        source.format,
        source.sessionId,
        source.path,
        source.importedAt,
      );
    },
    transcriptLineTurns: (key, lineIds) => {
      const found = new Map<string, string | null>();
      if (lineIds.length === 1) {
        // The common case (one line per entry): a cached statement.
        const row = statement('SELECT turn_id AS turnId FROM transcript_lines WHERE source_key = ? AND line_id = ?').get(
          key,
          lineIds[0],
        ) as { turnId: string | null } | undefined;
        if (row) found.set(lineIds[0] as string, row.turnId);
        return found;
      }
      for (const chunk of chunks([...new Set(lineIds)])) {
        const rows = sqlite
          .prepare(
            `SELECT line_id AS lineId, turn_id AS turnId FROM transcript_lines WHERE source_key = ? AND line_id IN (${placeholders(chunk.length)})`,
          )
          .all(key, ...chunk) as Array<{ lineId: string; turnId: string | null }>;
        for (const row of rows) found.set(row.lineId, row.turnId);
      }
      return found;
    },
    recordTranscriptLines: (key, lines) => {
      if (lines.length > 0) recordLines.immediate(key, lines);
    },
    transcriptSourcePage: ({ afterKey, limit }) =>
      (afterKey === undefined
        ? statement(
            'SELECT source_key AS key, format, session_id AS sessionId, path, imported_at AS importedAt FROM transcript_sources ' +
              'ORDER BY source_key LIMIT ?',
          ).all(limit)
        : statement(
            'SELECT source_key AS key, format, session_id AS sessionId, path, imported_at AS importedAt FROM transcript_sources ' +
              'WHERE source_key > ? ORDER BY source_key LIMIT ?',
          ).all(afterKey, limit)) as TranscriptSourceRecord[],
    transcriptLinePage: (key, { afterLineId, limit }) =>
      (afterLineId === undefined
        ? statement(
            'SELECT line_id AS lineId, turn_id AS turnId FROM transcript_lines WHERE source_key = ? ORDER BY line_id LIMIT ?',
          ).all(key, limit)
        : statement(
            'SELECT line_id AS lineId, turn_id AS turnId FROM transcript_lines WHERE source_key = ? AND line_id > ? ' +
              'ORDER BY line_id LIMIT ?',
          ).all(key, afterLineId, limit)) as TranscriptLineRecord[],
    turnAtTime: (sessionId, time) =>
      (
        statement(
          "SELECT id FROM agent_turns WHERE session_id = ? AND turn_type = 'normal' AND timestamp <= ? ORDER BY depth DESC LIMIT 1",
        ).get(sessionId, time) as { id: string } | undefined
      )?.id,
    getTranscriptPosition: (path) =>
      statement('SELECT path, bytes, line, head, updated_at AS updatedAt FROM transcript_positions WHERE path = ?').get(path) as
        | TranscriptPosition
        | undefined,
    putTranscriptPosition: (position) => {
      statement(
        'INSERT INTO transcript_positions (path, bytes, line, head, updated_at) VALUES (?, ?, ?, ?, ?) ' +
          'ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes, line = excluded.line, head = excluded.head, ' +
          'updated_at = excluded.updated_at',
      ).run(position.path, position.bytes, position.line, position.head, position.updatedAt);
    },
  };
}
