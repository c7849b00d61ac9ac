// The snippets of search hits: FTS5's highlight() of the matched rows, asked for the hits shown
// only, cut by @agent-ledger/store's snippet rule (the one every engine uses: the matched words
// marked, an identifier they are part of never cut).

import { snippetOfHighlight } from '@agent-ledger/store';
import type { SqliteConnection } from './sqlite-connection.ts';

export type SearchIndex = 'turns_fts' | 'compactions_fts' | 'events_fts';

/** The whole text with each match between char(2) and char(3) (the store's MATCH_START, MATCH_STOP). */
const SNIPPET = (table: SearchIndex) => `highlight(${table}, 0, char(2), char(3))`;

// Snippets only for the hits shown: computed in the ranking query they cost as much as the ranking.
// (CAST: FTS5 drops a `rowid = ?` constraint bound as a double, and would snippet the first match.)
export function snippetOf(
  connection: SqliteConnection,
  { table, expression, rowid }: { table: SearchIndex; expression: string; rowid: number },
): string {
  const row = connection
    .statement(`SELECT ${SNIPPET(table)} AS snippet FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`)
    .get(expression, rowid) as { snippet: string | null } | undefined;
  return snippetOfHighlight(row?.snippet ?? '');
}

/**
 * The snippets of hits of one index, by rowid. A search bounded to its newest rows (`floor`) reads
 * them in one walk of those rows: looking a row up seeks into every word's list, which for common
 * words costs more than walking the thousand rows (about 0.2 ms a hit for three common words at a
 * million turns, against under 1 ms for the walk). Otherwise one lookup per hit.
 */
export function snippetsOf(
  connection: SqliteConnection,
  {
    table,
    expression,
    rowids,
    floor,
  }: { table: SearchIndex; expression: string; rowids: readonly number[]; floor: number | null },
): Map<number, string> {
  if (floor === null || rowids.length < 2) {
    return new Map(rowids.map((rowid) => [rowid, snippetOf(connection, { table, expression, rowid })]));
  }
  // `+rowid`: a test on each row of the walk, not a lookup per value; one statement whatever the count.
  const sql =
    `SELECT rowid, ${SNIPPET(table)} AS snippet FROM ${table} WHERE ${table} MATCH ? AND rowid >= CAST(? AS INTEGER) ` +
    'AND +rowid IN (SELECT value FROM json_each(?))';
  const rows = connection.statement(sql).all(expression, floor, JSON.stringify(rowids)) as Array<{
    rowid: number;
    snippet: string | null;
  }>;
  return new Map(rows.map((row) => [row.rowid, snippetOfHighlight(row.snippet ?? '')]));
}
