// The conditions of a turn search as SQL over a turn `t`: on a line of sessions, under the
// filters, and the turn that stands for a match in the resolved view.

import type { LineCompaction, LineSegment, TurnSearchFilters } from '@agent-ledger/store';
import type { SqlParameters } from './sql-parameters.ts';

/** SQL true for a turn `t` on the line. */
export function lineClause(line: readonly LineSegment[], parameters: SqlParameters): string {
  if (line.length === 0) return 'false';
  return `(${line
    .map(
      (segment) =>
        `(t.session_id = ${parameters.add(segment.sessionId)} AND t.depth BETWEEN ${parameters.add(segment.fromDepth)}::int ` +
        `AND ${parameters.add(segment.toDepth)}::int)`,
    )
    .join(' OR ')})`;
}

export function turnFilters(filters: TurnSearchFilters, parameters: SqlParameters): string[] {
  const clauses: string[] = [];
  if (filters.role !== undefined) clauses.push(`t.role = ${parameters.add(filters.role)}`);
  if (filters.turnType !== undefined) clauses.push(`t.turn_type = ${parameters.add(filters.turnType)}`);
  if (filters.author !== undefined) clauses.push(`t.metadata->>'author' = ${parameters.add(filters.author)}`);
  if (filters.since !== undefined) clauses.push(`t.timestamp >= ${parameters.add(filters.since)}::bigint`);
  if (filters.until !== undefined) clauses.push(`t.timestamp <= ${parameters.add(filters.until)}::bigint`);
  if (filters.scope) {
    const alternatives: string[] = [];
    if (filters.scope.line.length > 0) alternatives.push(lineClause(filters.scope.line, parameters));
    const sessions = filters.scope.sessionIds ?? [];
    if (sessions.length > 0) alternatives.push(`t.session_id = ANY(${parameters.add(sessions)}::text[])`);
    clauses.push(alternatives.length > 0 ? `(${alternatives.join(' OR ')})` : 'false');
  }
  return clauses;
}

/** SQL true when turn `t` is summarized on a line whose newest compaction has these depths. */
function coveredBy(throughDepth: string, depth: string): string {
  return `((t.turn_type = 'normal' AND t.depth <= ${throughDepth}) OR (t.turn_type = 'compaction' AND t.depth < ${depth}))`;
}

/** The turn standing for a match `t` in the resolved view (s: its session, c: its line's newest compaction). */
export function canonicalTurn(
  line: readonly LineSegment[] | undefined,
  view: LineCompaction | null,
  parameters: SqlParameters,
): string {
  // A turn outside the viewed line (or with no view) resolves on its own session's line.
  const ownLine =
    'CASE WHEN c.id IS NOT NULL AND (s.ignore_compactions_through_depth IS NULL OR c.depth > s.ignore_compactions_through_depth) ' +
    `AND ${coveredBy('c.summarized_through_depth', 'c.depth')} THEN c.id ELSE t.id END`;
  if (!line) return ownLine;
  const onViewLine = view
    ? `CASE WHEN ${coveredBy(`${parameters.add(view.summarizedThroughDepth)}::int`, `${parameters.add(view.depth)}::int`)} ` +
      `THEN ${parameters.add(view.id)}::text ELSE t.id END`
    : 't.id';
  return `CASE WHEN ${lineClause(line, parameters)} THEN ${onViewLine} ELSE ${ownLine} END`;
}
