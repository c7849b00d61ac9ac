// The turns' embedding vectors on PostgreSQL: turn_embeddings, one float32 little-endian bytea per
// turn and model.

import type { LineSegment, ModelTurnEmbedding, TurnEmbedding } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { SqlParameters } from './sql-parameters.ts';
import { lineClause } from './turn-search-clauses.ts';

/** A float32 bytea as a Float32Array (copied when the driver's buffer is not 4-byte aligned). */
function vectorOf(bytes: Buffer): Float32Array {
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return new Float32Array(Uint8Array.from(bytes).buffer);
}

export function turnsWithoutEmbedding(
  db: PgExecutor,
  model: string,
  line: readonly LineSegment[],
): Promise<Array<{ turnId: string; text: string | null }>> {
  const parameters = new SqlParameters();
  const sql =
    'SELECT t.id AS "turnId", t.search_text AS text FROM agent_turns t ' +
    `LEFT JOIN turn_embeddings e ON e.turn_id = t.id AND e.model = ${parameters.add(model)} ` +
    `WHERE t.turn_type = 'normal' AND e.turn_id IS NULL AND ${lineClause(line, parameters)} ORDER BY t.depth`;
  return db.query<{ turnId: string; text: string | null }>(sql, parameters.values);
}

export async function putTurnEmbeddings(db: PgExecutor, model: string, embeddings: readonly TurnEmbedding[]): Promise<void> {
  if (embeddings.length === 0) return;
  // One row per turn (the last vector given wins, as a replacement would): ON CONFLICT DO
  // UPDATE cannot touch a row twice in one statement.
  const latest = new Map(embeddings.map((embedding) => [embedding.turnId, embedding.vector]));
  const vectors = [...latest.values()];
  await db.execute(
    'INSERT INTO turn_embeddings (turn_id, model, dimensions, vector) ' +
      'SELECT turn_id, $1, dimensions, vector FROM unnest($2::text[], $3::int[], $4::bytea[]) AS e (turn_id, dimensions, vector) ' +
      'ON CONFLICT (model, turn_id) DO UPDATE SET dimensions = excluded.dimensions, vector = excluded.vector',
    [
      model,
      [...latest.keys()],
      vectors.map((vector) => vector.length),
      vectors.map((vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)),
    ],
  );
}

export async function turnEmbeddingPage(
  db: PgExecutor,
  { after, limit }: { after?: { model: string; turnId: string }; limit: number },
): Promise<ModelTurnEmbedding[]> {
  const rows =
    after === undefined
      ? await db.query<{ model: string; turnId: string; vector: Buffer }>(
          'SELECT model, turn_id AS "turnId", vector FROM turn_embeddings ORDER BY model, turn_id LIMIT $1',
          [limit],
        )
      : await db.query<{ model: string; turnId: string; vector: Buffer }>(
          'SELECT model, turn_id AS "turnId", vector FROM turn_embeddings WHERE (model, turn_id) > ($1, $2) ' +
            'ORDER BY model, turn_id LIMIT $3',
          [after.model, after.turnId, limit],
        );
  return rows.map((row) => ({ model: row.model, turnId: row.turnId, vector: vectorOf(row.vector) }));
}

export async function turnEmbeddings(
  db: PgExecutor,
  model: string,
  line: readonly LineSegment[],
): Promise<Array<TurnEmbedding & { depth: number }>> {
  const parameters = new SqlParameters();
  const sql =
    'SELECT t.id AS "turnId", t.depth AS depth, e.vector AS vector FROM turn_embeddings e ' +
    `JOIN agent_turns t ON t.id = e.turn_id WHERE e.model = ${parameters.add(model)} AND ${lineClause(line, parameters)}`;
  const rows = await db.query<{ turnId: string; depth: number; vector: Buffer }>(sql, parameters.values);
  return rows.map((row) => ({ turnId: row.turnId, depth: row.depth, vector: vectorOf(row.vector) }));
}
