// FTS5's own check that a full-text index matches the rows it indexes, on any connection a store
// has. The check is an INSERT command ('integrity-check'): it writes nothing, but SQLite refuses to
// begin it on a connection that may not write, and that refusal ("attempt to write a readonly
// database") must not be reported as an index that does not match. A query_only connection lifts
// query_only for the one statement; a read-only one (a file this process may not write) runs the
// check on a private in-memory copy of the file, which costs the file's size in memory once.

import type Database from 'better-sqlite3';
import { inMemoryCopy } from './in-memory-copy.ts';

/**
 * The first problem FTS5 finds in the indexes `tables` (with how to rebuild that one), or null when
 * each matches its rows.
 */
export function fts5IndexProblem(sqlite: Database.Database, tables: readonly string[]): string | null {
  if (!sqlite.readonly) return firstProblem(tables, (table) => onConnection(sqlite, table));
  let copy: Database.Database;
  try {
    copy = inMemoryCopy(sqlite);
  } catch (error) {
    return `${tables.join(', ')}: not checked: the file is read-only here and no copy to check it on could be made (${(error as Error).message})`;
  }
  try {
    return firstProblem(tables, (table) => integrityCheck(copy, table));
  } finally {
    copy.close();
  }
}

function firstProblem(tables: readonly string[], check: (table: string) => string | null): string | null {
  for (const table of tables) {
    const problem = check(table);
    if (problem !== null) return `${table}: ${problem}; rebuild it with INSERT INTO ${table}(${table}) VALUES ('rebuild')`;
  }
  return null;
}

function integrityCheck(sqlite: Database.Database, table: string): string | null {
  try {
    // rank 1: an external-content index is compared with its content rows too, not only with itself.
    sqlite.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 1)`).run();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

function onConnection(sqlite: Database.Database, table: string): string | null {
  const queryOnly = sqlite.pragma('query_only', { simple: true }) === 1;
  if (!queryOnly) return integrityCheck(sqlite, table);
  sqlite.pragma('query_only = OFF');
  try {
    return integrityCheck(sqlite, table);
  } finally {
    sqlite.pragma('query_only = ON');
  }
}
