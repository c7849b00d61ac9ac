// Turn search on SQLite: FTS5 over agent_turns (turns_fts for normal turns, compactions_fts for
// compaction summaries, read together), ranked by bm25 and keyset-paged on (bm25, rowid). A page is
// raw (every matching turn) or resolved (each match stands as the compaction that covers it). What
// is ranked is bounded (search-candidates.ts): common words do not rank, and at most the newest
// RANKED_ROWS matches do.

import type { SearchMatch, SearchPage, TurnSearchFilters, TurnSearchHit, TurnSearchQuery } from '@agent-ledger/store';
import { decodeCursor, encodeCursor, type KeysetPosition, matchExpressions, withSearchErrors } from './fts5-query.ts';
import { type SearchIndex, snippetsOf } from './fts5-snippet.ts';
import { type BoundSql, type RowSource, rankedRows } from './search-candidates.ts';
import { type Clauses, keyset, lineClauses } from './search-clauses.ts';
import { planSearch, type SearchPlan } from './search-plan.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

function turnFilters(filters: TurnSearchFilters): Clauses {
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    parameters.push(value);
  };
  if (filters.role !== undefined) add('t.role = ?', filters.role);
  if (filters.turnType !== undefined) add('t.turn_type = ?', filters.turnType);
  if (filters.author !== undefined) add("json_extract(t.metadata, '$.author') = ?", filters.author);
  if (filters.since !== undefined) add('t.timestamp >= ?', filters.since);
  if (filters.until !== undefined) add('t.timestamp <= ?', filters.until);
  if (filters.scope) {
    const scope = lineClauses(filters.scope.line);
    const sessions = filters.scope.sessionIds ?? [];
    const alternatives = filters.scope.line.length > 0 ? [...scope.clauses] : [];
    const values = filters.scope.line.length > 0 ? [...scope.parameters] : [];
    if (sessions.length > 0) {
      alternatives.push(`t.session_id IN (${sessions.map(() => '?').join(', ')})`);
      values.push(...sessions);
    }
    clauses.push(alternatives.length > 0 ? `(${alternatives.join(' OR ')})` : '0');
    parameters.push(...values);
  }
  return { clauses, parameters };
}

/** SQL true when turn `t` is summarized on a line whose newest compaction has these columns. */
function coveredBy(throughDepth: string, depth: string): string {
  return `((t.turn_type = 'normal' AND t.depth <= ${throughDepth}) OR (t.turn_type = 'compaction' AND t.depth < ${depth}))`;
}

interface TurnRow {
  id: string;
  sessionId: string;
  depth: number;
  turnType: 'normal' | 'compaction';
  role: 'user' | 'assistant' | null;
  timestamp: number;
  rowid: number;
  score: number;
  canonical: string;
  canonicalSessionId: string;
  canonicalTimestamp: number;
}

/**
 * The indexes a turn search reads: normal turns in turns_fts, compaction summaries in
 * compactions_fts (migration 0012), each row scored by its own index's bm25. Two indexes so that
 * bm25's statistics over the turns are not skewed by summaries repeating the same lines compaction
 * after compaction. A search of one turn type reads that type's index only (recall searches normal
 * turns: it never scores the summaries); otherwise both, so a search finds summaries as before.
 */
function turnIndexes(turnType: TurnSearchFilters['turnType']): SearchIndex[] {
  if (turnType === 'normal') return ['turns_fts'];
  if (turnType === 'compaction') return ['compactions_fts'];
  return ['turns_fts', 'compactions_fts'];
}

const TURNS: RowSource = { table: 'agent_turns', alias: 't' };

const TURN_HIT_COLUMNS =
  't.id AS id, t.session_id AS sessionId, t.depth AS depth, t.turn_type AS turnType, t.role AS role, t.timestamp AS timestamp';

/**
 * One ranked page: the matching rows with their scores (rankedRows), the search's filters, where
 * the page starts and how many rows to take.
 */
interface PageRequest {
  matched: BoundSql;
  filters: Clauses;
  after: KeysetPosition | null;
  take: number;
}

/** Every matching turn, as itself. */
function rawPage(connection: SqliteConnection, { matched, filters, after, take }: PageRequest): TurnRow[] {
  const page = keyset(after, 'm.score', 't.rowid');
  const where = [...filters.clauses, ...page.clauses];
  const sql =
    `SELECT ${TURN_HIT_COLUMNS}, t.rowid AS rowid, m.score AS score, t.id AS canonical, ` +
    't.session_id AS canonicalSessionId, t.timestamp AS canonicalTimestamp ' +
    `FROM ${matched.sql} CROSS JOIN agent_turns t ON t.rowid = m.matchRowid ` +
    `${where.length > 0 ? `WHERE ${where.join(' AND ')} ` : ''}ORDER BY score, t.rowid LIMIT ?`;
  return connection.statement(sql).all(...matched.parameters, ...filters.parameters, ...page.parameters, take) as TurnRow[];
}

/**
 * SQL naming the turn that stands for a match `t`: the newest compaction of its line when that
 * compaction covers it (each folds the one before), else the turn itself.
 */
function canonicalTurn(query: TurnSearchQuery): { sql: string; parameters: unknown[] } {
  // A turn outside the viewed line (or with no view) resolves on its own session's line.
  const ownLine =
    'CASE WHEN c.id IS NOT NULL AND (s.ignore_compactions_through_depth IS NULL OR c.depth > s.ignore_compactions_through_depth) ' +
    `AND ${coveredBy('c.summarized_through_depth', 'c.depth')} THEN c.id ELSE t.id END`;
  const line = query.filters?.scope?.line;
  if (!line) return { sql: ownLine, parameters: [] };
  const view = query.lineCompaction ?? null;
  const onLine = lineClauses(line);
  const onViewLine = view ? `CASE WHEN ${coveredBy('?', '?')} THEN ? ELSE t.id END` : 't.id';
  const parameters = [...onLine.parameters];
  if (view) parameters.push(view.summarizedThroughDepth, view.depth, view.id);
  return { sql: `CASE WHEN (${onLine.clauses.join(' OR ')}) THEN ${onViewLine} ELSE ${ownLine} END`, parameters };
}

/**
 * The resolved view in one statement: each match maps to the turn that stands for it
 * (`canonicalTurn`), and matches are grouped by that turn, best score first. Every match is ranked
 * once per page, and a compaction appears on one page only.
 */
function resolvedPage(
  connection: SqliteConnection,
  { matched, filters, after, take, query }: PageRequest & { query: TurnSearchQuery },
): TurnRow[] {
  const canonical = canonicalTurn(query);
  const page = keyset(after, 'g.score', 'g.turnRowid');
  const sql =
    // MATERIALIZED: the matches are scored once, before GROUP BY.
    `WITH matches AS MATERIALIZED (SELECT ${TURN_HIT_COLUMNS}, t.rowid AS turnRowid, m.score AS score, ` +
    `${canonical.sql} AS canonical ` +
    `FROM ${matched.sql} CROSS JOIN agent_turns t ON t.rowid = m.matchRowid JOIN agent_sessions s ON s.id = t.session_id ` +
    'LEFT JOIN agent_turns h ON h.id = s.head_turn_id LEFT JOIN agent_turns c ON c.id = h.latest_compaction_id ' +
    `${filters.clauses.length > 0 ? `WHERE ${filters.clauses.join(' AND ')}` : ''}), ` +
    // SQLite takes the bare columns of a MIN() group from the row holding the minimum: the best
    // match (another engine: DISTINCT ON (canonical) … ORDER BY canonical, score, rowid).
    // (`turnRowid`, not `rowid`: inside a materialized CTE `rowid` names the CTE's own row number.)
    'grouped AS (SELECT canonical, MIN(score) AS score, id, sessionId, depth, turnType, role, timestamp, turnRowid ' +
    'FROM matches GROUP BY canonical) ' +
    'SELECT g.id AS id, g.sessionId AS sessionId, g.depth AS depth, g.turnType AS turnType, g.role AS role, ' +
    'g.timestamp AS timestamp, g.turnRowid AS rowid, g.score AS score, g.canonical AS canonical, ' +
    'k.session_id AS canonicalSessionId, k.timestamp AS canonicalTimestamp FROM grouped g JOIN agent_turns k ON k.id = g.canonical ' +
    `${page.clauses.length > 0 ? `WHERE ${page.clauses.join(' AND ')} ` : ''}ORDER BY g.score, g.turnRowid LIMIT ?`;
  return connection
    .statement(sql)
    .all(...canonical.parameters, ...matched.parameters, ...filters.parameters, ...page.parameters, take) as TurnRow[];
}

function turnHit(row: TurnRow, snippet: string): TurnSearchHit {
  return {
    turnId: row.id,
    sessionId: row.sessionId,
    depth: row.depth,
    turnType: row.turnType,
    role: row.role,
    timestamp: row.timestamp,
    score: -row.score,
    snippet,
    canonicalTurnId: row.canonical,
    canonicalSessionId: row.canonicalSessionId,
    canonicalTimestamp: row.canonicalTimestamp,
    cursor: encodeCursor({ score: row.score, rowid: row.rowid }),
  };
}

/** The snippets of a page's rows, by rowid, each from its own index. */
function pageSnippets(
  connection: SqliteConnection,
  { rows, plan }: { rows: readonly TurnRow[]; plan: SearchPlan },
): Map<number, string> {
  const snippets = new Map<number, string>();
  for (const table of ['turns_fts', 'compactions_fts'] as const) {
    const rowids = rows
      .filter((row) => (row.turnType === 'compaction') === (table === 'compactions_fts'))
      .map((row) => row.rowid);
    if (rowids.length === 0) continue;
    const found = snippetsOf(connection, { table, expression: plan.expression.match, rowids, floor: plan.newest?.floor ?? null });
    for (const [rowid, snippet] of found) snippets.set(rowid, snippet);
  }
  return snippets;
}

/**
 * A page of a turn search, ranked as planSearch decides (common words do not rank; at most the
 * newest RANKED_ROWS matches do: @agent-ledger/store search-bounds.ts).
 */
export function searchTurns(connection: SqliteConnection, query: TurnSearchQuery): SearchPage<TurnSearchHit> {
  return withSearchErrors(query.match, () => {
    const filters = turnFilters(query.filters ?? {});
    const after = decodeCursor(query.cursor);
    const plan = planSearch(connection, query.match, { indexes: turnIndexes(query.filters?.turnType), rows: TURNS, filters });
    if (plan === undefined) return { hits: [], nextCursor: null };
    const matched = rankedRows(turnIndexes(query.filters?.turnType), plan.expression, plan.newest);
    const request: PageRequest = { matched, filters, after, take: query.limit + 1 };
    const rows = query.view === 'raw' ? rawPage(connection, request) : resolvedPage(connection, { ...request, query });
    const page = rows.slice(0, query.limit);
    const snippets = query.snippets === false ? new Map<number, string>() : pageSnippets(connection, { rows: page, plan });
    const hits = page.map((row) => turnHit(row, snippets.get(row.rowid) ?? ''));
    const last = page.at(-1);
    return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
  });
}

/** How many turns the search's expression matches (the same choice of expression as a search). */
export function countTurnMatches(connection: SqliteConnection, match: SearchMatch): number {
  return withSearchErrors(match, () => {
    const count = (expression: string) =>
      (
        connection
          .statement(
            'SELECT (SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?) + ' +
              '(SELECT count(*) FROM compactions_fts WHERE compactions_fts MATCH ?) AS n',
          )
          .get(expression, expression) as { n: number }
      ).n;
    let found = 0;
    // The same choice as a search: the first expression that matches anything, else the last.
    for (const expression of matchExpressions(match)) {
      found = count(expression);
      if (found > 0) break;
    }
    return found;
  });
}
