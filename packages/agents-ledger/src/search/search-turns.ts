// Full-text search over every turn — normal and compaction, every session and fork — ranked by
// bm25 with highlighted snippets. The resolved view (default) reports a hit inside a summarized
// turn as the canonical compaction that stands in for it, annotated `via`; the raw view reports
// the matching turns themselves.

import { decodeCursor, encodeCursor, InvalidInputError, planMatch, type Role, type TurnType } from '@nexus/core';
import { type AgentSessionRow, agentSessions, type LedgerDrizzle, withSearchErrors } from '@nexus/db';
import { eq } from 'drizzle-orm';
import { effectiveCompaction } from '../build-context.ts';
import type { LedgerContext } from '../ledger-context.ts';
import { chainSegments, requireSessionRow, requireTurnRow } from '../store/chain.ts';

export interface TurnSearchOptions {
  /** `resolved` (default): hits in summarized turns surface as their canonical compaction. */
  view?: 'resolved' | 'raw';
  /** Only turns on this session's line (its own and those it inherited from its fork point). */
  sessionId?: string;
  /** With `sessionId`: also the turns of every fork below it. */
  includeForks?: boolean;
  role?: Role;
  turnType?: TurnType;
  /** `metadata.author`, as the importer records it. */
  author?: string;
  /** Turn timestamp bounds, inclusive, ms since the epoch. */
  since?: number;
  until?: number;
  /** Hits per page (default 20, at most 200). */
  limit?: number;
  cursor?: string;
  /** The query is FTS5 syntax (phrases, NEAR, prefix*, column filters); a syntax error is SearchSyntaxError. */
  advanced?: boolean;
}

export interface TurnHit {
  /** The turn to open: the canonical compaction in the resolved view when the match was summarized. */
  turnId: string;
  sessionId: string;
  turnType: TurnType;
  /** Resolved view: the matching turn a compaction stands in for (null when the hit is the turn itself). */
  via: string | null;
  role: Role | null;
  timestamp: number;
  snippet: string;
  /** bm25 score, lower is better. */
  score: number;
  /** Continues the search right after this hit (to page through several ranked lists at once). */
  cursor?: string;
}

export interface TurnSearchResult {
  hits: TurnHit[];
  nextCursor: string | null;
}

interface RawHit {
  id: string;
  sessionId: string;
  turnType: TurnType;
  role: Role | null;
  timestamp: number;
  rowid: number;
  score: number;
  snippet: string;
}

const SNIPPET = "snippet(turns_fts, 0, '[', ']', '…', 16)";

export function searchTurns(ledger: LedgerContext, query: string, options: TurnSearchOptions = {}): TurnSearchResult {
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new InvalidInputError('limit must be 1 to 200.', 'limit');
  const plan = planMatch(query, options.advanced);
  const filters = buildFilters(ledger.database.db, options);
  const after = decodeCursor(options.cursor);
  // Every term must match; only when nothing does anywhere, any term may (ranked by bm25). The
  // choice depends on the query and filters alone, so every page of one search uses the same one.
  const expression = plan.expressions.find(
    (candidate, index) =>
      index === plan.expressions.length - 1 || withSearchErrors(plan, () => anyMatch(ledger, candidate, filters)),
  );
  if (expression === undefined) return { hits: [], nextCursor: null };
  const rows = withSearchErrors(plan, () =>
    options.view === 'raw'
      ? runRawPage(ledger, expression, filters, after, limit + 1)
      : runResolvedPage(ledger, expression, filters, after, limit + 1),
  );
  const page = rows.slice(0, limit);
  // Snippets only for the hits shown: computed in the ranking query they cost as much as the ranking.
  // (CAST: FTS5 drops a `rowid = ?` constraint bound as a double, and would snippet the first match.)
  const snippet = ledger.database.sqlite.prepare(
    `SELECT ${SNIPPET} AS snippet FROM turns_fts WHERE turns_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
  );
  for (const row of page) row.snippet = (snippet.get(expression, row.rowid) as { snippet: string } | undefined)?.snippet ?? '';
  const hits = page.map((row) => ({ ...toHit(row), cursor: encodeCursor({ score: row.score, rowid: row.rowid }) }));
  const last = page.at(-1);
  return { hits, nextCursor: rows.length > limit && last ? encodeCursor({ score: last.score, rowid: last.rowid }) : null };
}

interface Filters {
  clauses: string[];
  parameters: unknown[];
}

interface SearchFilters extends Filters {
  /** With a session: the clauses selecting turns on its line, and the compaction standing in there. */
  line: Filters | null;
  lineCompaction: { id: string; depth: number; throughDepth: number } | null;
}

interface HitRow extends RawHit {
  canonical: string;
  canonicalSessionId: string;
  canonicalTimestamp: number;
}

type Position = ReturnType<typeof decodeCursor>;

function anyMatch(ledger: LedgerContext, expression: string, filters: Filters): boolean {
  const where = ['turns_fts MATCH ?', ...filters.clauses].join(' AND ');
  const sql = `SELECT 1 FROM turns_fts JOIN agent_turns t ON t.rowid = turns_fts.rowid WHERE ${where} LIMIT 1`;
  return ledger.database.sqlite.prepare(sql).get(expression, ...filters.parameters) !== undefined;
}

function keyset(after: Position, score: string, rowid: string): Filters {
  if (!after) return { clauses: [], parameters: [] };
  return { clauses: [`(${score} > ? OR (${score} = ? AND ${rowid} > ?))`], parameters: [after.score, after.score, after.rowid] };
}

function runRawPage(ledger: LedgerContext, expression: string, filters: Filters, after: Position, take: number): HitRow[] {
  const page = keyset(after, 'bm25(turns_fts)', 't.rowid');
  const sql =
    'SELECT t.id AS id, t.session_id AS sessionId, t.turn_type AS turnType, t.role AS role, t.timestamp AS timestamp, ' +
    "t.rowid AS rowid, bm25(turns_fts) AS score, '' AS snippet, t.id AS canonical, " +
    't.session_id AS canonicalSessionId, t.timestamp AS canonicalTimestamp ' +
    'FROM turns_fts JOIN agent_turns t ON t.rowid = turns_fts.rowid ' +
    `WHERE ${['turns_fts MATCH ?', ...filters.clauses, ...page.clauses].join(' AND ')} ORDER BY score, t.rowid LIMIT ?`;
  return ledger.database.sqlite.prepare(sql).all(expression, ...filters.parameters, ...page.parameters, take) as HitRow[];
}

/** SQL true when turn `t` is summarized on a line whose newest compaction has these columns. */
function coveredBy(throughDepth: string, depth: string): string {
  return `((t.turn_type = 'normal' AND t.depth <= ${throughDepth}) OR (t.turn_type = 'compaction' AND t.depth < ${depth}))`;
}

/**
 * The resolved view in one statement: each match maps to the turn that stands for it — the newest
 * compaction of its line when that compaction covers it (each folds the one before), else the turn
 * itself — and matches are grouped by that turn, best score first. Every match is ranked once per
 * page, and a compaction appears on one page only.
 */
function runResolvedPage(
  ledger: LedgerContext,
  expression: string,
  filters: SearchFilters,
  after: Position,
  take: number,
): HitRow[] {
  // A turn outside the viewed line (or with no view) resolves on its own session's line.
  const ownLine =
    'CASE WHEN c.id IS NOT NULL AND (s.ignore_compactions_through_depth IS NULL OR c.depth > s.ignore_compactions_through_depth) ' +
    `AND ${coveredBy('c.summarized_through_depth', 'c.depth')} THEN c.id ELSE t.id END`;
  let canonical = ownLine;
  const canonicalParameters: unknown[] = [];
  if (filters.line) {
    const view = filters.lineCompaction;
    const onViewLine = view ? `CASE WHEN ${coveredBy('?', '?')} THEN ? ELSE t.id END` : 't.id';
    canonical = `CASE WHEN (${filters.line.clauses.join(' OR ')}) THEN ${onViewLine} ELSE ${ownLine} END`;
    canonicalParameters.push(...filters.line.parameters);
    if (view) canonicalParameters.push(view.throughDepth, view.depth, view.id);
  }
  const page = keyset(after, 'g.score', 'g.turnRowid');
  const sql =
    // MATERIALIZED: bm25() only works while the full-text query runs, not after GROUP BY.
    'WITH matches AS MATERIALIZED (SELECT t.id AS id, t.session_id AS sessionId, t.turn_type AS turnType, t.role AS role, ' +
    `t.timestamp AS timestamp, t.rowid AS turnRowid, bm25(turns_fts) AS score, '' AS snippet, ${canonical} AS canonical ` +
    'FROM turns_fts JOIN agent_turns t ON t.rowid = turns_fts.rowid JOIN agent_sessions s ON s.id = t.session_id ' +
    'LEFT JOIN agent_turns h ON h.id = s.head_turn_id LEFT JOIN agent_turns c ON c.id = h.latest_compaction_id ' +
    `WHERE ${['turns_fts MATCH ?', ...filters.clauses].join(' AND ')}), ` +
    // SQLite takes the bare columns of a MIN() group from the row holding the minimum: the best match.
    // (`turnRowid`, not `rowid`: inside a materialized CTE `rowid` names the CTE's own row number.)
    'grouped AS (SELECT canonical, MIN(score) AS score, id, sessionId, turnType, role, timestamp, turnRowid, snippet ' +
    'FROM matches GROUP BY canonical) ' +
    'SELECT g.id AS id, g.sessionId AS sessionId, g.turnType AS turnType, g.role AS role, g.timestamp AS timestamp, ' +
    'g.turnRowid AS rowid, g.score AS score, g.snippet AS snippet, g.canonical AS canonical, ' +
    'k.session_id AS canonicalSessionId, k.timestamp AS canonicalTimestamp FROM grouped g JOIN agent_turns k ON k.id = g.canonical ' +
    `${page.clauses.length > 0 ? `WHERE ${page.clauses.join(' AND ')} ` : ''}ORDER BY g.score, g.turnRowid LIMIT ?`;
  return ledger.database.sqlite
    .prepare(sql)
    .all(...canonicalParameters, expression, ...filters.parameters, ...page.parameters, take) as HitRow[];
}

function toHit(row: HitRow): TurnHit {
  if (row.canonical === row.id) return rawHitToHit(row);
  return {
    turnId: row.canonical,
    sessionId: row.canonicalSessionId,
    turnType: 'compaction',
    via: row.id,
    role: null,
    timestamp: row.canonicalTimestamp,
    snippet: flatten(row.snippet),
    score: row.score,
  };
}

function buildFilters(db: LedgerDrizzle, options: TurnSearchOptions): SearchFilters {
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    parameters.push(value);
  };
  if (options.role) add('t.role = ?', options.role);
  if (options.turnType) add('t.turn_type = ?', options.turnType);
  if (options.author !== undefined) add("json_extract(t.metadata, '$.author') = ?", options.author);
  if (options.since !== undefined) add('t.timestamp >= ?', options.since);
  if (options.until !== undefined) add('t.timestamp <= ?', options.until);
  if (options.sessionId === undefined) return { clauses, parameters, line: null, lineCompaction: null };

  const session = requireSessionRow(db, options.sessionId);
  const head = session.headTurnId ? requireTurnRow(db, session.headTurnId) : null;
  const line: Filters = { clauses: [], parameters: [] };
  for (const segment of head ? chainSegments(db, head) : []) {
    line.clauses.push('(t.session_id = ? AND t.depth BETWEEN ? AND ?)');
    line.parameters.push(segment.sessionId, segment.fromDepth, segment.toDepth);
  }
  if (line.clauses.length === 0) line.clauses.push('0');
  const scope: Filters = { clauses: [...line.clauses], parameters: [...line.parameters] };
  const forks = options.includeForks ? descendants(db, session) : [];
  if (forks.length > 0) {
    scope.clauses.push(`t.session_id IN (${forks.map(() => '?').join(', ')})`);
    scope.parameters.push(...forks);
  }
  clauses.push(`(${scope.clauses.join(' OR ')})`);
  parameters.push(...scope.parameters);
  const newest = head ? effectiveCompaction(db, head, session) : null;
  return {
    clauses,
    parameters,
    line,
    lineCompaction: newest ? { id: newest.id, depth: newest.depth, throughDepth: newest.summarizedThroughDepth ?? -1 } : null,
  };
}

function descendants(db: LedgerDrizzle, session: AgentSessionRow): string[] {
  const found: string[] = [];
  let frontier = [session.id];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const row of db
        .select({ id: agentSessions.id })
        .from(agentSessions)
        .where(eq(agentSessions.parentSessionId, id))
        .all()) {
        next.push(row.id);
      }
    }
    found.push(...next);
    frontier = next;
  }
  return found;
}

function rawHitToHit(hit: RawHit): TurnHit {
  return {
    turnId: hit.id,
    sessionId: hit.sessionId,
    turnType: hit.turnType,
    via: null,
    role: hit.role,
    timestamp: hit.timestamp,
    snippet: flatten(hit.snippet),
    score: hit.score,
  };
}

/** Snippets are shown one per line; the matched text's own line breaks would split them. */
function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
