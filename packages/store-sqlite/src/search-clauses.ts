// SQL fragments the SQLite searches compose: WHERE clauses with their bound parameters, for a line
// of turns and for a keyset page's bounds.

import type { LineSegment } from '@agent-ledger/store';
import type { KeysetPosition } from './fts5-query.ts';

/** Clauses joined by AND (by the caller), and the parameters they bind, in order. */
export interface Clauses {
  clauses: string[];
  parameters: unknown[];
}

const NONE: Clauses = { clauses: [], parameters: [] };

/** SQL true for a turn `t` on the line. */
export function lineClauses(line: readonly LineSegment[]): Clauses {
  if (line.length === 0) return { clauses: ['0'], parameters: [] };
  return {
    clauses: line.map(() => '(t.session_id = ? AND t.depth BETWEEN ? AND ?)'),
    parameters: line.flatMap((segment) => [segment.sessionId, segment.fromDepth, segment.toDepth]),
  };
}

/** Rows after `after` in (score, rowid) order; every row when there is no `after`. */
export function keyset(after: KeysetPosition | null, score: string, rowid: string): Clauses {
  if (!after) return NONE;
  return { clauses: [`(${score} > ? OR (${score} = ? AND ${rowid} > ?))`], parameters: [after.score, after.score, after.rowid] };
}
