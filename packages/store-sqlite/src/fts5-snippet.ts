// The snippet of one search hit: FTS5's snippet() of the matched row, asked for the hits shown only.

import type { SqliteConnection } from './sqlite-connection.ts';

export type SearchIndex = 'turns_fts' | 'compactions_fts' | 'events_fts';

// Snippets only for the hits shown: computed in the ranking query they cost as much as the ranking.
// (CAST: FTS5 drops a `rowid = ?` constraint bound as a double, and would snippet the first match.)
export function snippetOf(
  connection: SqliteConnection,
  { table, expression, rowid }: { table: SearchIndex; expression: string; rowid: number },
): string {
  return (
    (
      connection
        .statement(
          `SELECT snippet(${table}, 0, '[', ']', '…', 16) AS snippet FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`,
        )
        .get(expression, rowid) as { snippet: string } | undefined
    )?.snippet ?? ''
  );
}
