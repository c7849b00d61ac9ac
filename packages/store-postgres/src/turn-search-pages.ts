// One ranked page of a turn search, in one statement, in either view: raw (each matching turn on
// its own) or resolved (each match stands as the turn that covers it today).

import type { TurnSearchQuery } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { afterClause, type KeysetPosition } from './search-cursor.ts';
import { plannedRows, type SearchPlan } from './search-plan.ts';
import { type ScoredTurnsSelect, scoredTurns } from './search-ranking.ts';
import type { SearchSource } from './search-source.ts';
import type { WordWeight } from './search-statistics.ts';
import { SqlParameters } from './sql-parameters.ts';
import { canonicalTurn } from './turn-search-clauses.ts';

/** A ranked match and the turn standing for it. */
export interface TurnRow {
  id: string;
  sessionId: string;
  depth: number;
  turnType: 'normal' | 'compaction';
  role: 'user' | 'assistant' | null;
  timestamp: number;
  score: number;
  canonical: string;
  canonicalSessionId: string;
  canonicalTimestamp: number;
}

/** Which page to read: the search, its plan, source and words' weights, where the page before ended, and how many rows. */
export interface TurnPageRequest {
  plan: SearchPlan;
  source: SearchSource;
  /** The ranking words' bm25 weights (null: advanced syntax, ranked by ts_rank_cd). */
  weights: readonly WordWeight[] | null;
  query: TurnSearchQuery;
  after: KeysetPosition | null;
  take: number;
}

/** The `hits` and `scored` WITH clauses of a page: the rows the plan ranks, scored (search-ranking.ts). */
function scoredPlan(
  { plan, source, weights }: Pick<TurnPageRequest, 'plan' | 'source' | 'weights'>,
  select: Pick<ScoredTurnsSelect, 'hitColumns' | 'columns' | 'from'>,
  parameters: SqlParameters,
): string {
  const rows = plannedRows(plan, source, parameters);
  return scoredTurns({ weights, tsquery: rows.rank }, { ...select, where: rows.where }, parameters);
}

/** The raw view: every matching turn, standing for itself. */
export function rawTurnPage(db: PgExecutor, { plan, source, weights, after, take }: TurnPageRequest): Promise<TurnRow[]> {
  const parameters = new SqlParameters();
  const scored = scoredPlan(
    { plan, source, weights },
    {
      hitColumns: 't.id, t.session_id, t.depth, t.turn_type, t.role, t.timestamp',
      columns: 'h.id, h.session_id, h.depth, h.turn_type, h.role, h.timestamp',
      from: 'FROM agent_turns t',
    },
    parameters,
  );
  const page = after ? `WHERE ${afterClause(after, { score: 'm.score', age: 'm.timestamp', id: 'm.id' }, parameters)} ` : '';
  const sql =
    `WITH ${scored} SELECT m.id, m.session_id AS "sessionId", m.depth, m.turn_type AS "turnType", m.role, ` +
    'm.timestamp::float8 AS timestamp, m.score, m.id AS canonical, m.session_id AS "canonicalSessionId", ' +
    `m.timestamp::float8 AS "canonicalTimestamp" FROM scored m ${page}` +
    `ORDER BY m.score DESC, m.timestamp, m.id COLLATE "C" LIMIT ${parameters.add(take)}`;
  return db.query<TurnRow>(sql, parameters.values);
}

/**
 * The resolved view in one statement: each match maps to the turn that stands for it — the
 * newest compaction of its line when that compaction covers it (each folds the one before), else
 * the turn itself — and matches are grouped by that turn (DISTINCT ON keeps the group's best
 * match), best score first. Every match is ranked once per page, and a compaction appears on one
 * page only.
 */
export function resolvedTurnPage(db: PgExecutor, request: TurnPageRequest): Promise<TurnRow[]> {
  const { query, after, take } = request;
  const parameters = new SqlParameters();
  const canonical = canonicalTurn(query.filters?.scope?.line, query.lineCompaction ?? null, parameters);
  const scored = scoredPlan(
    request,
    {
      hitColumns: `t.id, t.session_id, t.depth, t.turn_type, t.role, t.timestamp, ${canonical} AS canonical`,
      columns: 'h.id, h.session_id, h.depth, h.turn_type, h.role, h.timestamp, h.canonical',
      from:
        'FROM agent_turns t JOIN agent_sessions s ON s.id = t.session_id ' +
        'LEFT JOIN agent_turns h ON h.id = s.head_turn_id LEFT JOIN agent_turns c ON c.id = h.latest_compaction_id',
    },
    parameters,
  );
  const page = after ? `WHERE ${afterClause(after, { score: 'b.score', age: 'b.timestamp', id: 'b.id' }, parameters)} ` : '';
  const sql =
    `WITH ${scored}, ` +
    'best AS (SELECT DISTINCT ON (canonical) * FROM scored ORDER BY canonical, score DESC, timestamp, id COLLATE "C") ' +
    'SELECT b.id, b.session_id AS "sessionId", b.depth, b.turn_type AS "turnType", b.role, b.timestamp::float8 AS timestamp, ' +
    'b.score, b.canonical, k.session_id AS "canonicalSessionId", k.timestamp::float8 AS "canonicalTimestamp" ' +
    `FROM best b JOIN agent_turns k ON k.id = b.canonical ${page}` +
    `ORDER BY b.score DESC, b.timestamp, b.id COLLATE "C" LIMIT ${parameters.add(take)}`;
  return db.query<TurnRow>(sql, parameters.values);
}
