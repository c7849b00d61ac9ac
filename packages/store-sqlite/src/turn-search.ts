// Turn search on SQLite: FTS5 over agent_turns (turns_fts for normal turns, compactions_fts for
// compaction summaries, read together), ranked by bm25 and keyset-paged on (bm25, rowid). A page is
// raw (every matching turn) or resolved (each match stands as the compaction that covers it).

import type { SearchMatch, SearchPage, TurnSearchFilters, TurnSearchHit, TurnSearchQuery } from '@agent-ledger/store';
import {
  chooseExpression,
  decodeCursor,
  encodeCursor,
  type KeysetPosition,
  matchExpressions,
  withSearchErrors,
} from './fts5-query.ts';
import { snippetOf } from './fts5-snippet.ts';
import { type Clauses, keyset, lineClauses } from './search-clauses.ts';
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
 * The turns a full-text expression matches, as `m (matchRowid, score)`: normal turns from turns_fts,
 * compaction summaries from compactions_fts (migration 0012), each scored by its own index's bm25.
 * Two indexes so that bm25's statistics over the turns are not skewed by summaries repeating the same
 * lines compaction after compaction. A search of one turn type reads that type's index only (recall
 * searches normal turns: it never scores the summaries); otherwise both, so a search finds summaries
 * as before. `expressions`: how many times the expression is bound.
 */
function matchedTurns(turnType: TurnSearchFilters['turnType']): { sql: string; expressions: number } {
  const index = (name: string) => `SELECT rowid AS matchRowid, bm25(${name}) AS score FROM ${name} WHERE ${name} MATCH ?`;
  if (turnType === 'normal') return { sql: `(${index('turns_fts')}) m`, expressions: 1 };
  if (turnType === 'compaction') return { sql: `(${index('compactions_fts')}) m`, expressions: 1 };
  return { sql: `(${index('turns_fts')} UNION ALL ${index('compactions_fts')}) m`, expressions: 2 };
}

/** The expression once per index `matchedTurns` reads. */
function bound(expression: string, matched: { expressions: number }): string[] {
  return Array.from({ length: matched.expressions }, () => expression);
}

const TURN_HIT_COLUMNS =
  't.id AS id, t.session_id AS sessionId, t.depth AS depth, t.turn_type AS turnType, t.role AS role, t.timestamp AS timestamp';

/** Whether `expression` matches any turn under the filters. */
function anyTurnMatch(
  connection: SqliteConnection,
  { expression, filters, turnType }: { expression: string; filters: Clauses; turnType: TurnSearchFilters['turnType'] },
): boolean {
  const matched = matchedTurns(turnType);
  const where = filters.clauses.length > 0 ? ` WHERE ${filters.clauses.join(' AND ')}` : '';
  const sql = `SELECT 1 FROM ${matched.sql} CROSS JOIN agent_turns t ON t.rowid = m.matchRowid${where} LIMIT 1`;
  return connection.statement(sql).get(...bound(expression, matched), ...filters.parameters) !== undefined;
}

/** One ranked page: the expression, the search's filters, where the page starts and how many rows to take. */
interface PageRequest {
  expression: string;
  filters: Clauses;
  after: KeysetPosition | null;
  take: number;
}

/** Every matching turn, as itself. */
function rawPage(
  connection: SqliteConnection,
  { expression, filters, after, take, turnType }: PageRequest & { turnType: TurnSearchFilters['turnType'] },
): TurnRow[] {
  const matched = matchedTurns(turnType);
  const page = keyset(after, 'm.score', 't.rowid');
  const where = [...filters.clauses, ...page.clauses];
  const sql =
    `SELECT ${TURN_HIT_COLUMNS}, t.rowid AS rowid, m.score AS score, t.id AS canonical, ` +
    't.session_id AS canonicalSessionId, t.timestamp AS canonicalTimestamp ' +
    `FROM ${matched.sql} CROSS JOIN agent_turns t ON t.rowid = m.matchRowid ` +
    `${where.length > 0 ? `WHERE ${where.join(' AND ')} ` : ''}ORDER BY score, t.rowid LIMIT ?`;
  return connection
    .statement(sql)
    .all(...bound(expression, matched), ...filters.parameters, ...page.parameters, take) as TurnRow[];
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
  { expression, filters, after, take, query }: PageRequest & { query: TurnSearchQuery },
): TurnRow[] {
  const matched = matchedTurns(query.filters?.turnType);
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
    .all(...canonical.parameters, ...bound(expression, matched), ...filters.parameters, ...page.parameters, take) as TurnRow[];
}

function turnHit(
  connection: SqliteConnection,
  { row, expression, snippets }: { row: TurnRow; expression: string; snippets: boolean },
): TurnSearchHit {
  return {
    turnId: row.id,
    sessionId: row.sessionId,
    depth: row.depth,
    turnType: row.turnType,
    role: row.role,
    timestamp: row.timestamp,
    score: -row.score,
    snippet: snippets
      ? snippetOf(connection, {
          table: row.turnType === 'compaction' ? 'compactions_fts' : 'turns_fts',
          expression,
          rowid: row.rowid,
        })
      : '',
    canonicalTurnId: row.canonical,
    canonicalSessionId: row.canonicalSessionId,
    canonicalTimestamp: row.canonicalTimestamp,
    cursor: encodeCursor({ score: row.score, rowid: row.rowid }),
  };
}

export function searchTurns(connection: SqliteConnection, query: TurnSearchQuery): SearchPage<TurnSearchHit> {
  return withSearchErrors(query.match, () => {
    const filters = turnFilters(query.filters ?? {});
    const after = decodeCursor(query.cursor);
    const turnType = query.filters?.turnType;
    const expression = chooseExpression(query.match, (candidate) =>
      anyTurnMatch(connection, { expression: candidate, filters, turnType }),
    );
    if (expression === undefined) return { hits: [], nextCursor: null };
    const request: PageRequest = { expression, filters, after, take: query.limit + 1 };
    const rows =
      query.view === 'raw' ? rawPage(connection, { ...request, turnType }) : resolvedPage(connection, { ...request, query });
    const page = rows.slice(0, query.limit);
    const snippets = query.snippets !== false;
    const hits = page.map((row) => turnHit(connection, { row, expression, snippets }));
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
