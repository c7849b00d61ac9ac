// Turn embeddings on SQLite: turn_embeddings, one float32 blob per turn and model, read by line
// (a session's own turns and the turns of the sessions it forked from) or paged for an export.

import type { LineSegment, ModelTurnEmbedding, TurnEmbedding } from '@agent-ledger/store';
import { lineClauses } from './search-clauses.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

/** A float32 blob as a Float32Array (copied when the driver's buffer is not 4-byte aligned). */
function vectorOf(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(Uint8Array.from(blob).buffer);
}

export function turnsWithoutEmbedding(
  connection: SqliteConnection,
  model: string,
  line: readonly LineSegment[],
): Array<{ turnId: string; text: string | null }> {
  const { clauses, parameters } = lineClauses(line);
  return connection
    .statement(
      'SELECT t.id AS turnId, t.search_text AS text FROM agent_turns t ' +
        'LEFT JOIN turn_embeddings e ON e.turn_id = t.id AND e.model = ? ' +
        `WHERE t.turn_type = 'normal' AND e.turn_id IS NULL AND (${clauses.join(' OR ')}) ORDER BY t.depth`,
    )
    .all(model, ...parameters) as Array<{ turnId: string; text: string | null }>;
}

/** Stores a model's embeddings all or none, as a better-sqlite3 transaction made once per connection. */
export function putEmbeddingsTransaction(
  connection: SqliteConnection,
): (model: string, embeddings: readonly TurnEmbedding[]) => void {
  return connection.sqlite.transaction((model: string, embeddings: readonly TurnEmbedding[]) => {
    const insert = connection.statement(
      'INSERT OR REPLACE INTO turn_embeddings (turn_id, model, dimensions, vector) VALUES (?, ?, ?, ?)',
    );
    for (const { turnId, vector } of embeddings) {
      insert.run(turnId, model, vector.length, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    }
  });
}

export function turnEmbeddingPage(
  connection: SqliteConnection,
  { after, limit }: { after?: { model: string; turnId: string }; limit: number },
): ModelTurnEmbedding[] {
  const rows = (
    after === undefined
      ? connection
          .statement('SELECT model, turn_id AS turnId, vector FROM turn_embeddings ORDER BY model, turn_id LIMIT ?')
          .all(limit)
      : connection
          .statement(
            'SELECT model, turn_id AS turnId, vector FROM turn_embeddings WHERE (model, turn_id) > (?, ?) ' +
              'ORDER BY model, turn_id LIMIT ?',
          )
          .all(after.model, after.turnId, limit)
  ) as Array<{ model: string; turnId: string; vector: Buffer }>;
  return rows.map((row) => ({ model: row.model, turnId: row.turnId, vector: vectorOf(row.vector) }));
}

export function turnEmbeddings(
  connection: SqliteConnection,
  model: string,
  line: readonly LineSegment[],
): Array<TurnEmbedding & { depth: number }> {
  const { clauses, parameters } = lineClauses(line);
  const rows = connection
    .statement(
      'SELECT t.id AS turnId, t.depth AS depth, e.vector AS vector FROM turn_embeddings e ' +
        `JOIN agent_turns t ON t.id = e.turn_id WHERE e.model = ? AND (${clauses.join(' OR ')})`,
    )
    .all(model, ...parameters) as Array<{ turnId: string; depth: number; vector: Buffer }>;
  return rows.map((row) => ({ turnId: row.turnId, depth: row.depth, vector: vectorOf(row.vector) }));
}
