// Full-text search over every turn — normal and compaction, every session and fork — ranked by
// bm25 with highlighted snippets. The resolved view (default) reports a hit inside a summarized
// turn as the canonical compaction that stands in for it, annotated `via`; the raw view reports
// the matching turns themselves.

import { decodeCursor, encodeCursor, InvalidInputError, planMatch, type Role, type TurnType } from '@nexus/core';
import { type AgentSessionRow, agentSessions, type LedgerDrizzle, withSearchErrors } from '@nexus/db';
import { eq } from 'drizzle-orm';
import type { LedgerContext } from '../ledger-context.ts';
import { chainSegments, requireSessionRow, requireTurnRow } from '../store/chain.ts';
import { canonicalCompaction } from './canon.ts';

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
      index === plan.expressions.length - 1 ||
      withSearchErrors(plan, () => runPage(ledger, candidate, filters, null, 1)).length > 0,
  );
  if (expression === undefined) return { hits: [], nextCursor: null };
  const hits: TurnHit[] = [];
  // Compactions reported on earlier pages stay reported: a compaction stands in for matches all
  // down the ranking, and each must surface once per search, not once per page.
  const seen = new Set<string>(after?.seen ?? []);
  let position = after;
  for (;;) {
    const page = withSearchErrors(plan, () => runPage(ledger, expression, filters, position, limit + 1));
    let consumed = 0;
    for (const raw of page.slice(0, limit)) {
      consumed += 1;
      const hit = options.view === 'raw' ? rawHitToHit(raw) : resolveHit(ledger, raw, options.sessionId);
      const duplicate = seen.has(hit.turnId);
      if (hit.turnType === 'compaction' && hit.via !== null) seen.add(hit.turnId);
      position = { score: raw.score, rowid: raw.rowid, seen: [...seen] };
      if (duplicate) continue;
      hits.push({ ...hit, cursor: encodeCursor(position) });
      if (hits.length === limit) break;
    }
    const rawLeft = page.length > consumed;
    if (hits.length === limit) return { hits, nextCursor: rawLeft && position ? encodeCursor(position) : null };
    if (!rawLeft) return { hits, nextCursor: null };
  }
}

interface Filters {
  clauses: string[];
  parameters: unknown[];
}

function runPage(
  ledger: LedgerContext,
  expression: string,
  filters: Filters,
  after: ReturnType<typeof decodeCursor>,
  take: number,
): RawHit[] {
  const clauses = ['turns_fts MATCH ?', ...filters.clauses];
  const parameters: unknown[] = [expression, ...filters.parameters];
  if (after) {
    clauses.push('(bm25(turns_fts) > ? OR (bm25(turns_fts) = ? AND t.rowid > ?))');
    parameters.push(after.score, after.score, after.rowid);
  }
  const sql =
    `SELECT t.id AS id, t.session_id AS sessionId, t.turn_type AS turnType, t.role AS role, t.timestamp AS timestamp, ` +
    `t.rowid AS rowid, bm25(turns_fts) AS score, ${SNIPPET} AS snippet ` +
    `FROM turns_fts JOIN agent_turns t ON t.rowid = turns_fts.rowid WHERE ${clauses.join(' AND ')} ` +
    'ORDER BY score, t.rowid LIMIT ?';
  return ledger.database.sqlite.prepare(sql).all(...parameters, take) as RawHit[];
}

function buildFilters(db: LedgerDrizzle, options: TurnSearchOptions): Filters {
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  if (options.role) {
    clauses.push('t.role = ?');
    parameters.push(options.role);
  }
  if (options.turnType) {
    clauses.push('t.turn_type = ?');
    parameters.push(options.turnType);
  }
  if (options.author !== undefined) {
    clauses.push("json_extract(t.metadata, '$.author') = ?");
    parameters.push(options.author);
  }
  if (options.since !== undefined) {
    clauses.push('t.timestamp >= ?');
    parameters.push(options.since);
  }
  if (options.until !== undefined) {
    clauses.push('t.timestamp <= ?');
    parameters.push(options.until);
  }
  if (options.sessionId !== undefined) {
    const scope = sessionScope(db, options.sessionId, options.includeForks ?? false);
    clauses.push(`(${scope.clauses.join(' OR ')})`);
    parameters.push(...scope.parameters);
  }
  return { clauses, parameters };
}

/** The turns on a session's line (a few depth ranges, one per fork on the way to the root), and optionally its forks' own turns. */
function sessionScope(db: LedgerDrizzle, sessionId: string, includeForks: boolean): Filters {
  const session = requireSessionRow(db, sessionId);
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  if (session.headTurnId) {
    for (const segment of chainSegments(db, requireTurnRow(db, session.headTurnId))) {
      clauses.push('(t.session_id = ? AND t.depth BETWEEN ? AND ?)');
      parameters.push(segment.sessionId, segment.fromDepth, segment.toDepth);
    }
  }
  if (includeForks) {
    const forks = descendants(db, session);
    if (forks.length > 0) {
      clauses.push(`t.session_id IN (${forks.map(() => '?').join(', ')})`);
      parameters.push(...forks);
    }
  }
  return clauses.length > 0 ? { clauses, parameters } : { clauses: ['0'], parameters: [] };
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

/** A hit as its canonical compaction, or as itself when nothing has summarized it. */
function resolveHit(ledger: LedgerContext, hit: RawHit, viewSessionId: string | undefined): TurnHit {
  const canonical = canonicalCompaction(ledger, hit.id, viewSessionId);
  if (!canonical) return rawHitToHit(hit);
  return {
    turnId: canonical.id,
    sessionId: canonical.sessionId,
    turnType: 'compaction',
    via: hit.id,
    role: null,
    timestamp: canonical.timestamp,
    snippet: flatten(hit.snippet),
    score: hit.score,
  };
}
