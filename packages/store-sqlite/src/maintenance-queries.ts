// Doctor's scans on SQLite: compactions and tool-calling turns in (session_id, depth) order, paged
// by a row-value comparison on the unique (session_id, depth) index, FTS5's own integrity check of
// the turns' search indexes (fts5-integrity.ts, which works on a read-only connection too), and
// SQLite's quick_check of the whole file.

import type { CompactionPointers, LinePosition, MaintenanceStore, ToolCallingTurn } from '@agent-ledger/store';
import { fts5IndexProblem } from './fts5-integrity.ts';
import { isDamage } from './ledger-refusals.ts';
import { chunks, parseJson, placeholders, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';

/** The keyset bounds of a page: rows after `after`, or from the start. */
function pageBounds(after: LinePosition | undefined): [string, number] {
  // '' sorts before every id and -1 before every depth, so "after nothing" is the whole scan.
  return after ? [after.sessionId, after.depth] : ['', -1];
}

export function maintenanceQueries(connection: SqliteConnection): Synchronous<MaintenanceStore> {
  const { sqlite, statement } = connection;
  return {
    checkStorageIntegrity: () => {
      try {
        // At most this many findings: a badly damaged file would list every page.
        const findings = (sqlite.pragma('quick_check(20)') as Array<{ quick_check: string }>).map((row) => row.quick_check);
        return findings.length === 1 && findings[0] === 'ok' ? null : findings.join('; ');
      } catch (error) {
        // Some damage stops the check itself (a page that is not a B-tree page at all): that is its finding.
        if (isDamage(error)) return (error as Error).message;
        throw error;
      }
    },
    // Normal turns and compaction summaries each have an index (migration 0012); both must match their rows.
    checkTurnSearchIndex: () => fts5IndexProblem(sqlite, ['turns_fts', 'compactions_fts']),
    compactionPointers: ({ after, limit }) => {
      const rows = statement(
        'SELECT c.id, c.session_id AS sessionId, c.depth, c.summarized_through_turn_id AS summarizedThroughTurnId, ' +
          'c.first_kept_turn_id AS firstKeptTurnId, c.previous_compaction_id AS previousCompactionId, ' +
          'c.covers_from_depth AS coversFromDepth, c.summarized_through_depth AS summarizedThroughDepth, ' +
          '(t.id IS NOT NULL) AS throughExists, t.depth AS throughDepth, k.depth AS keptDepth ' +
          'FROM agent_turns c LEFT JOIN agent_turns t ON t.id = c.summarized_through_turn_id ' +
          'LEFT JOIN agent_turns k ON k.id = c.first_kept_turn_id ' +
          "WHERE c.turn_type = 'compaction' AND (c.session_id, c.depth) > (?, ?) ORDER BY c.session_id, c.depth LIMIT ?",
      ).all(...pageBounds(after), limit) as Array<
        Omit<CompactionPointers, 'throughExists'> & { throughExists: number | boolean }
      >;
      return rows.map((row) => ({ ...row, throughExists: row.throughExists === 1 || row.throughExists === true }));
    },
    toolCallingTurns: ({ after, limit }) =>
      (
        statement(
          'SELECT id, session_id AS sessionId, depth, content FROM agent_turns ' +
            "WHERE turn_type = 'normal' AND tool_call_count > 0 AND (session_id, depth) > (?, ?) ORDER BY session_id, depth LIMIT ?",
        ).all(...pageBounds(after), limit) as ToolCallingTurn[]
      ).map((row) => ({ ...row, content: parseJson(row.content) })),
    sessionsForkedAt: (turnIds) => {
      const forks = new Map<string, string[]>();
      for (const chunk of chunks([...new Set(turnIds)])) {
        const rows = sqlite
          .prepare(
            `SELECT id, forked_from_turn_id AS turnId FROM agent_sessions WHERE forked_from_turn_id IN (${placeholders(chunk.length)}) ` +
              'ORDER BY created_at, id',
          )
          .all(...chunk) as Array<{ id: string; turnId: string }>;
        for (const row of rows) forks.set(row.turnId, [...(forks.get(row.turnId) ?? []), row.id]);
      }
      return forks;
    },
  };
}
