// The three statements every append of a turn runs, prepared once per connection (measured by
// `pnpm bench`: the query builder cost more than the writes themselves).

import type Database from 'better-sqlite3';
import type { LedgerDatabase } from './open-database.ts';
import { preparedInsert } from './prepared-insert.ts';
import { type AgentTurnRow, agentTurns } from './schema.ts';

export interface TurnWrites {
  insertTurn(row: AgentTurnRow): void;
  markHasChildren(turnId: string): void;
  /** Compare-and-set of the session head; returns false when the head was not `expected`. */
  moveHead(sessionId: string, expected: string | null, next: string): boolean;
}

const cache = new WeakMap<Database.Database, TurnWrites>();

export function turnWrites(database: LedgerDatabase): TurnWrites {
  const { sqlite } = database;
  let writes = cache.get(sqlite);
  if (writes) return writes;
  const markHasChildren = sqlite.prepare('UPDATE agent_turns SET has_children = 1 WHERE id = ? AND has_children = 0');
  const moveHead = sqlite.prepare('UPDATE agent_sessions SET head_turn_id = ? WHERE id = ? AND head_turn_id IS ?');
  writes = {
    insertTurn: preparedInsert<AgentTurnRow>(sqlite, agentTurns),
    markHasChildren: (turnId) => {
      markHasChildren.run(turnId);
    },
    moveHead: (sessionId, expected, next) => moveHead.run(next, sessionId, expected).changes === 1,
  };
  cache.set(sqlite, writes);
  return writes;
}
