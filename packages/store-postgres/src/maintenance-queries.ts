// Doctor's scans on PostgreSQL: compactions and tool-calling turns in (session_id, depth) order,
// paged by a row-value comparison on the unique (session_id, depth) index. PostgreSQL has no
// quick_check of its storage (its pages are checksummed and checked by the server as it reads them,
// amcheck is an extension an operator runs), so the storage check is a cheap sanity query: the
// ledger's tables are there and answer. The turns' search index is a generated tsvector column
// the server keeps in step with each row itself, so it cannot drift from the turns: nothing to check.

import type { CompactionPointers, LinePosition, MaintenanceStore, ToolCallingTurn } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';

/** The tables the sanity check expects; a missing one means the ledger's schema is not all there. */
const LEDGER_TABLES = ['agent_sessions', 'agent_turns', 'events', 'turn_events', 'forest_states', 'transcript_sources'];

/** The keyset bounds of a page: rows after `after`, or from the start. */
function pageBounds(after: LinePosition | undefined): [string, number] {
  // '' sorts before every id and -1 before every depth, so "after nothing" is the whole scan.
  return after ? [after.sessionId, after.depth] : ['', -1];
}

const COMPACTION_POINTERS =
  'SELECT c.id, c.session_id AS "sessionId", c.depth::int AS depth, c.summarized_through_turn_id AS "summarizedThroughTurnId", ' +
  'c.first_kept_turn_id AS "firstKeptTurnId", c.previous_compaction_id AS "previousCompactionId", ' +
  'c.covers_from_depth::int AS "coversFromDepth", c.summarized_through_depth::int AS "summarizedThroughDepth", ' +
  '(t.id IS NOT NULL) AS "throughExists", t.depth::int AS "throughDepth", k.depth::int AS "keptDepth" ' +
  'FROM agent_turns c LEFT JOIN agent_turns t ON t.id = c.summarized_through_turn_id ' +
  'LEFT JOIN agent_turns k ON k.id = c.first_kept_turn_id ' +
  "WHERE c.turn_type = 'compaction' AND (c.session_id, c.depth) > ($1, $2) ORDER BY c.session_id, c.depth LIMIT $3";

const TOOL_CALLING_TURNS =
  'SELECT id, session_id AS "sessionId", depth::int AS depth, content FROM agent_turns ' +
  "WHERE turn_type = 'normal' AND tool_call_count > 0 AND (session_id, depth) > ($1, $2) ORDER BY session_id, depth LIMIT $3";

export function maintenanceQueries(executor: PgExecutor): MaintenanceStore {
  return {
    async checkStorageIntegrity() {
      const [row] = await executor.query<{ missing: string[] }>(
        'SELECT COALESCE(array_agg(name ORDER BY name), ARRAY[]::text[]) AS missing ' +
          'FROM unnest($1::text[]) AS expected (name) WHERE to_regclass(name) IS NULL',
        [LEDGER_TABLES],
      );
      const missing = row?.missing ?? [];
      return missing.length === 0 ? null : `the ledger's tables ${missing.join(', ')} are missing`;
    },

    async checkTurnSearchIndex() {
      return null;
    },

    async compactionPointers({ after, limit }) {
      return executor.query<CompactionPointers>(COMPACTION_POINTERS, [...pageBounds(after), limit]);
    },

    async toolCallingTurns({ after, limit }) {
      return executor.query<ToolCallingTurn>(TOOL_CALLING_TURNS, [...pageBounds(after), limit]);
    },

    async sessionsForkedAt(turnIds) {
      const forks = new Map<string, string[]>();
      if (turnIds.length === 0) return forks;
      const rows = await executor.query<{ id: string; turnId: string }>(
        'SELECT id, forked_from_turn_id AS "turnId" FROM agent_sessions WHERE forked_from_turn_id = ANY($1::text[]) ' +
          'ORDER BY created_at, id',
        [[...new Set(turnIds)]],
      );
      for (const row of rows) {
        const sessions = forks.get(row.turnId);
        if (sessions) sessions.push(row.id);
        else forks.set(row.turnId, [row.id]);
      }
      return forks;
    },
  };
}
