// The full-text index asked about one line: which normal turns on the chain up to a turn match an
// FTS5 expression, with their bm25 scores, and how many turns of the ledger hold a term. Lean on
// purpose (no snippets, no resolved view): recall asks it several times per context.

import type { LedgerContext } from '../ledger-context.ts';
import type { ChainSegment } from '../store/chain.ts';

export interface LineMatch {
  turnId: string;
  depth: number;
  /** bm25 relevance, higher is better (FTS5's score negated). */
  score: number;
}

/** Up to `limit` normal turns of `segments` matching `expression`, best first. */
export function matchOnLine(
  ledger: LedgerContext,
  segments: readonly ChainSegment[],
  expression: string,
  limit: number,
): LineMatch[] {
  if (segments.length === 0) return [];
  const line = segments.map(() => '(t.session_id = ? AND t.depth BETWEEN ? AND ?)').join(' OR ');
  const sql =
    'SELECT t.id AS turnId, t.depth AS depth, bm25(turns_fts) AS score FROM turns_fts ' +
    'JOIN agent_turns t ON t.rowid = turns_fts.rowid ' +
    `WHERE turns_fts MATCH ? AND t.turn_type = 'normal' AND (${line}) ORDER BY score, t.rowid LIMIT ?`;
  const parameters = segments.flatMap((segment) => [segment.sessionId, segment.fromDepth, segment.toDepth]);
  const rows = ledger.database.sqlite.prepare(sql).all(expression, ...parameters, limit) as LineMatch[];
  return rows.map((row) => ({ ...row, score: -row.score }));
}

/** Turns (of every session) whose text holds `term`: the document frequency feedback weighs terms by. */
export function turnsHolding(ledger: LedgerContext, term: string): number {
  const row = ledger.database.sqlite.prepare('SELECT count(*) AS n FROM turns_fts WHERE turns_fts MATCH ?').get(`"${term}"`) as
    | { n: number }
    | undefined;
  return row?.n ?? 0;
}

/** Turns in the full-text index, for inverse document frequencies. */
export function indexedTurns(ledger: LedgerContext): number {
  const row = ledger.database.sqlite.prepare('SELECT count(*) AS n FROM agent_turns').get() as { n: number } | undefined;
  return row?.n ?? 0;
}
