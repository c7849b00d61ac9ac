// The turns nearest a query vector on PostgreSQL (SearchStore.nearestTurns): exact, the scope's
// vectors read a page at a time and compared in JavaScript, the best `limit` kept between pages, so
// memory holds one page whatever the ledger's size. pgvector would do this in the server, but only
// over a column of its own `vector` type (these are float32 bytea, which it cannot read) with an
// index per model and dimension: a migration and the extension, which this server does not have
// (docs/store.md, "Nearest turns").

import { cosineSimilarity, InvalidInputError } from '@agent-ledger/core';
import { nearestFirst, type SearchStore, vectorFromBytes } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { SqlParameters } from './sql-parameters.ts';
import { lineClause } from './turn-search-clauses.ts';

type NearestTurnsQuery = Parameters<SearchStore['nearestTurns']>[0];
type NearestTurn = Awaited<ReturnType<SearchStore['nearestTurns']>>[number];

/** Vectors read per round trip (about 2 MB of 512-dimension vectors). */
const SCAN_PAGE = 1_000;

export async function nearestTurns(db: PgExecutor, query: NearestTurnsQuery): Promise<NearestTurn[]> {
  if (!Number.isInteger(query.limit) || query.limit < 1) {
    throw new InvalidInputError('nearestTurns needs a limit of 1 or more.', 'limit');
  }
  let best: NearestTurn[] = [];
  let after: string | null = null;
  for (;;) {
    const rows = await scopePage(db, query, after);
    for (const { vector, ...turn } of rows)
      best.push({ ...turn, similarity: cosineSimilarity(query.vector, vectorFromBytes(vector)) });
    best = nearestFirst(best).slice(0, query.limit);
    if (rows.length < SCAN_PAGE) return best;
    after = (rows[rows.length - 1] as { turnId: string }).turnId;
  }
}

/** One page of the scope's vectors of the query's model and length, in turn id order after `after`. */
function scopePage(
  db: PgExecutor,
  { model, vector, line }: NearestTurnsQuery,
  after: string | null,
): Promise<Array<Omit<NearestTurn, 'similarity'> & { vector: Buffer }>> {
  const parameters = new SqlParameters();
  const clauses = [`e.model = ${parameters.add(model)}`, `e.dimensions = ${parameters.add(vector.length)}::int`];
  if (line !== undefined) clauses.push(lineClause(line, parameters));
  if (after !== null) clauses.push(`e.turn_id > ${parameters.add(after)}`);
  return db.query(
    'SELECT t.id AS "turnId", t.session_id AS "sessionId", t.depth AS depth, e.vector AS vector ' +
      `FROM turn_embeddings e JOIN agent_turns t ON t.id = e.turn_id WHERE ${clauses.join(' AND ')} ` +
      `ORDER BY e.turn_id LIMIT ${SCAN_PAGE}`,
    parameters.values,
  );
}
