// Transcript imports on PostgreSQL: transcript_sources and transcript_lines, whose primary key
// (source_key, line_id) makes each lookup one index probe. Lines go in as bound arrays, a few
// thousand a statement.

import type { ImportStore, TranscriptLineRecord, TranscriptPosition, TranscriptSourceRecord } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';

/** Lines per INSERT: arrays this long keep one statement's parameters well under a megabyte. */
const LINES_PER_STATEMENT = 5_000;

// A line recorded already keeps its first turn (a re-run never moves a line), also when a batch
// names one line twice.
const INSERT_LINES =
  'INSERT INTO transcript_lines (source_key, line_id, turn_id) ' +
  'SELECT $1, line_id, turn_id FROM unnest($2::text[], $3::text[]) AS line (line_id, turn_id) ON CONFLICT DO NOTHING';

const SOURCE_COLUMNS = 'source_key AS key, format, session_id AS "sessionId", path, imported_at::float8 AS "importedAt"';

async function getTranscriptSource(db: PgExecutor, key: string): Promise<TranscriptSourceRecord | undefined> {
  const [row] = await db.query<TranscriptSourceRecord>(`SELECT ${SOURCE_COLUMNS} FROM transcript_sources WHERE source_key = $1`, [
    key,
  ]);
  return row;
}

async function insertTranscriptSource(db: PgExecutor, source: TranscriptSourceRecord): Promise<void> {
  await db.execute(
    'INSERT INTO transcript_sources (source_key, format, session_id, path, imported_at) VALUES ($1, $2, $3, $4, $5)',
    [source.key, source.format, source.sessionId, source.path, source.importedAt],
  );
}

async function transcriptLineTurns(db: PgExecutor, key: string, lineIds: readonly string[]): Promise<Map<string, string | null>> {
  const found = new Map<string, string | null>();
  if (lineIds.length === 0) return found;
  const rows = await db.query<{ lineId: string; turnId: string | null }>(
    'SELECT line_id AS "lineId", turn_id AS "turnId" FROM transcript_lines WHERE source_key = $1 AND line_id = ANY($2::text[])',
    [key, [...new Set(lineIds)]],
  );
  for (const row of rows) found.set(row.lineId, row.turnId);
  return found;
}

function insertLines(db: PgExecutor, key: string, lines: readonly TranscriptLineRecord[]): Promise<number> {
  return db.execute(INSERT_LINES, [key, lines.map((line) => line.lineId), lines.map((line) => line.turnId)]);
}

async function recordTranscriptLines(db: PgExecutor, key: string, lines: readonly TranscriptLineRecord[]): Promise<void> {
  if (lines.length === 0) return;
  // One statement is all or none by itself; more than one run in a transaction (or savepoint).
  if (lines.length <= LINES_PER_STATEMENT) {
    await insertLines(db, key, lines);
    return;
  }
  await db.atomically(async (transaction) => {
    for (let start = 0; start < lines.length; start += LINES_PER_STATEMENT) {
      await insertLines(transaction, key, lines.slice(start, start + LINES_PER_STATEMENT));
    }
  });
}

// Keyset pages in the database's own order of the keys (the primary key's index serves it).
function transcriptSourcePage(
  db: PgExecutor,
  { afterKey, limit }: { afterKey?: string; limit: number },
): Promise<TranscriptSourceRecord[]> {
  return afterKey === undefined
    ? db.query<TranscriptSourceRecord>(`SELECT ${SOURCE_COLUMNS} FROM transcript_sources ORDER BY source_key LIMIT $1`, [limit])
    : db.query<TranscriptSourceRecord>(
        `SELECT ${SOURCE_COLUMNS} FROM transcript_sources WHERE source_key > $1 ORDER BY source_key LIMIT $2`,
        [afterKey, limit],
      );
}

function transcriptLinePage(
  db: PgExecutor,
  key: string,
  { afterLineId, limit }: { afterLineId?: string; limit: number },
): Promise<TranscriptLineRecord[]> {
  return afterLineId === undefined
    ? db.query<TranscriptLineRecord>(
        'SELECT line_id AS "lineId", turn_id AS "turnId" FROM transcript_lines WHERE source_key = $1 ORDER BY line_id LIMIT $2',
        [key, limit],
      )
    : db.query<TranscriptLineRecord>(
        'SELECT line_id AS "lineId", turn_id AS "turnId" FROM transcript_lines WHERE source_key = $1 AND line_id > $2 ' +
          'ORDER BY line_id LIMIT $3',
        [key, afterLineId, limit],
      );
}

async function turnAtTime(db: PgExecutor, sessionId: string, time: number): Promise<string | undefined> {
  const [row] = await db.query<{ id: string }>(
    "SELECT id FROM agent_turns WHERE session_id = $1 AND turn_type = 'normal' AND timestamp <= $2 ORDER BY depth DESC LIMIT 1",
    [sessionId, time],
  );
  return row?.id;
}

async function getTranscriptPosition(db: PgExecutor, path: string): Promise<TranscriptPosition | undefined> {
  const [row] = await db.query<TranscriptPosition>(
    'SELECT path, bytes::float8 AS bytes, line, head, updated_at::float8 AS "updatedAt" FROM transcript_positions WHERE path = $1',
    [path],
  );
  return row;
}

async function putTranscriptPosition(db: PgExecutor, position: TranscriptPosition): Promise<void> {
  await db.execute(
    'INSERT INTO transcript_positions (path, bytes, line, head, updated_at) VALUES ($1, $2, $3, $4, $5) ' +
      'ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes, line = excluded.line, head = excluded.head, ' +
      'updated_at = excluded.updated_at',
    [position.path, position.bytes, position.line, position.head, position.updatedAt],
  );
}

export function importQueries(db: PgExecutor): ImportStore {
  return {
    getTranscriptSource: (key) => getTranscriptSource(db, key),
    insertTranscriptSource: (source) => insertTranscriptSource(db, source),
    transcriptLineTurns: (key, lineIds) => transcriptLineTurns(db, key, lineIds),
    recordTranscriptLines: (key, lines) => recordTranscriptLines(db, key, lines),
    transcriptSourcePage: (page) => transcriptSourcePage(db, page),
    transcriptLinePage: (key, page) => transcriptLinePage(db, key, page),
    turnAtTime: (sessionId, time) => turnAtTime(db, sessionId, time),
    getTranscriptPosition: (path) => getTranscriptPosition(db, path),
    putTranscriptPosition: (position) => putTranscriptPosition(db, position),
  };
}
