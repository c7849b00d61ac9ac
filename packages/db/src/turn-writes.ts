// The three statements every append runs, prepared once per connection. Building them through the
// query builder on every call cost more than the writes themselves (measured by `pnpm bench`); the column list and value encoding still come from the
// drizzle schema, so there is one definition of the table.

import type Database from 'better-sqlite3';
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { LedgerDatabase } from './open-database.ts';
import { type AgentTurnRow, agentTurns } from './schema.ts';

export interface TurnWrites {
  insertTurn(row: AgentTurnRow): void;
  markHasChildren(turnId: string): void;
  /** Compare-and-set of the session head; returns false when the head was not `expected`. */
  moveHead(sessionId: string, expected: string | null, next: string): boolean;
}

const cache = new WeakMap<Database.Database, TurnWrites>();
const turnColumns = Object.entries(getTableColumns(agentTurns));

export function turnWrites(database: LedgerDatabase): TurnWrites {
  const { sqlite } = database;
  let writes = cache.get(sqlite);
  if (writes) return writes;
  const insert = sqlite.prepare(
    `INSERT INTO "${getTableName(agentTurns)}" (${turnColumns.map(([, column]) => `"${column.name}"`).join(', ')}) ` +
      `VALUES (${turnColumns.map(() => '?').join(', ')})`,
  );
  const markHasChildren = sqlite.prepare('UPDATE agent_turns SET has_children = 1 WHERE id = ? AND has_children = 0');
  const moveHead = sqlite.prepare('UPDATE agent_sessions SET head_turn_id = ? WHERE id = ? AND head_turn_id IS ?');
  writes = {
    insertTurn: (row) => {
      insert.run(
        turnColumns.map(([key, column]) => {
          const value = row[key as keyof AgentTurnRow];
          return value === null || value === undefined ? null : column.mapToDriverValue(value);
        }),
      );
    },
    markHasChildren: (turnId) => {
      markHasChildren.run(turnId);
    },
    moveHead: (sessionId, expected, next) => moveHead.run(next, sessionId, expected).changes === 1,
  };
  cache.set(sqlite, writes);
  return writes;
}
