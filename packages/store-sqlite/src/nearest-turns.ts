// The turns nearest a query vector on SQLite (SearchStore.nearestTurns). With sqlite-vec loaded,
// vec_distance_cosine runs over the stored float32 blobs in SQL, under the same line scope as every
// other read, and only `limit` rows come back; without it, the scope's vectors are read and
// compared in JavaScript. Both are exact. A vec0 virtual table (sqlite-vec's KNN index) was
// measured too (docs/benchmarks.md, "Embeddings: cost"): it cannot filter by a line of several
// session segments, and it is a second copy of every vector to keep in step.

import { cosineSimilarity, InvalidInputError } from '@agent-ledger/core';
import { nearestFirst, type SearchStore, vectorFromBytes } from '@agent-ledger/store';
import { lineClauses } from './search-clauses.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import { vectorMethod } from './vector-extension.ts';

type NearestTurnsQuery = Parameters<SearchStore['nearestTurns']>[0];
type NearestTurn = Awaited<ReturnType<SearchStore['nearestTurns']>>[number];

/** The store operation: sqlite-vec where the connection could load it, the exact scan otherwise. */
export function nearestTurns(connection: SqliteConnection, query: NearestTurnsQuery): NearestTurn[] {
  requireLimit(query.limit);
  return vectorMethod(connection.sqlite) === 'sqlite-vec'
    ? nearestBySqliteVec(connection, query)
    : nearestByScan(connection, query);
}

function requireLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError('nearestTurns needs a limit of 1 or more.', 'limit');
}

/** WHERE for the model's vectors of the query's length, on the line when one is given. */
function scope({ model, vector, line }: NearestTurnsQuery): { where: string; parameters: unknown[] } {
  const onLine = line === undefined ? { clauses: ['1'], parameters: [] } : lineClauses(line);
  return {
    where: `e.model = ? AND e.dimensions = ? AND (${onLine.clauses.join(' OR ')})`,
    parameters: [model, vector.length, ...onLine.parameters],
  };
}

export function nearestBySqliteVec(connection: SqliteConnection, query: NearestTurnsQuery): NearestTurn[] {
  const { where, parameters } = scope(query);
  const vector = Buffer.from(query.vector.buffer, query.vector.byteOffset, query.vector.byteLength);
  // A zero vector has no direction: sqlite-vec says NULL, the similarity is 0 (distance 1).
  return connection
    .statement(
      'SELECT t.id AS turnId, t.session_id AS sessionId, t.depth AS depth, ' +
        '1.0 - coalesce(vec_distance_cosine(e.vector, ?), 1.0) AS similarity ' +
        `FROM turn_embeddings e JOIN agent_turns t ON t.id = e.turn_id WHERE ${where} ` +
        'ORDER BY similarity DESC, t.depth DESC, t.id DESC LIMIT ?',
    )
    .all(vector, ...parameters, query.limit) as NearestTurn[];
}

/** Rows read per statement step of the scan: the scan keeps only the best `limit` between pages. */
const SCAN_PAGE = 2_000;

export function nearestByScan(connection: SqliteConnection, query: NearestTurnsQuery): NearestTurn[] {
  const { where, parameters } = scope(query);
  const rows = connection
    .statement(
      'SELECT t.id AS turnId, t.session_id AS sessionId, t.depth AS depth, e.vector AS vector ' +
        `FROM turn_embeddings e JOIN agent_turns t ON t.id = e.turn_id WHERE ${where}`,
    )
    .iterate(...parameters) as IterableIterator<Omit<NearestTurn, 'similarity'> & { vector: Buffer }>;
  let best: NearestTurn[] = [];
  for (const row of rows) {
    const { vector, ...turn } = row;
    best.push({ ...turn, similarity: cosineSimilarity(query.vector, vectorFromBytes(vector)) });
    if (best.length >= SCAN_PAGE + query.limit) best = nearestFirst(best).slice(0, query.limit);
  }
  return nearestFirst(best).slice(0, query.limit);
}
