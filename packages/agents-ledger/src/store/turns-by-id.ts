// Turn rows by id, for readers that hold a list of ids (a topic's members, a forest's nodes).
// Read in chunks: SQLite limits the number of bound parameters in one statement.

import { type AgentTurnRow, agentTurns, type LedgerDrizzle } from '@nexus/db';
import { inArray } from 'drizzle-orm';

const CHUNK = 500;

/** The rows of `ids` that exist, by id (missing ids are simply absent). */
export function readTurnRowsById(db: LedgerDrizzle, ids: readonly string[]): Map<string, AgentTurnRow> {
  const rows = new Map<string, AgentTurnRow>();
  for (let start = 0; start < ids.length; start += CHUNK) {
    for (const row of db
      .select()
      .from(agentTurns)
      .where(inArray(agentTurns.id, ids.slice(start, start + CHUNK)))
      .all()) {
      rows.set(row.id, row);
    }
  }
  return rows;
}
