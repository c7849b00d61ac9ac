// Checks the agents ledger's invariants on what is stored, for `nexus doctor`: the search index
// agrees with the turns, and every compaction is well formed (its pointers resolve, it never
// compacts itself, it summarizes turns before the ones it keeps, and on each session's line every
// turn has at most one compactor), and so is every union-find forest (topics/check-forests.ts).
// Reports problems as data; never repairs anything.

import { findDanglingToolCalls } from './check-tool-calls.ts';
import type { LedgerContext } from './ledger-context.ts';
import { checkForests } from './topics/check-forests.ts';

export interface Problem {
  code: string;
  message: string;
  ids: string[];
  /** An error breaks an invariant; a warning is worth knowing but every read still works. Default error. */
  severity?: 'error' | 'warning';
}

interface CompactionRow {
  id: string;
  sessionId: string;
  depth: number;
  summarizedThroughTurnId: string;
  firstKeptTurnId: string | null;
  previousCompactionId: string | null;
  coversFromDepth: number | null;
  summarizedThroughDepth: number | null;
  throughExists: number;
  throughDepth: number | null;
  keptDepth: number | null;
}

export function checkLedger(ledger: LedgerContext): Problem[] {
  const { sqlite } = ledger.database;
  const problems: Problem[] = [];
  try {
    sqlite.prepare("INSERT INTO turns_fts (turns_fts, rank) VALUES ('integrity-check', 1)").run();
  } catch (error) {
    problems.push({
      code: 'SEARCH_INDEX_MISMATCH',
      message: `The turn search index does not match the turns (${(error as Error).message}); rebuild it with INSERT INTO turns_fts(turns_fts) VALUES ('rebuild').`,
      ids: [],
    });
  }
  const compactions = sqlite
    .prepare(
      `SELECT c.id, c.session_id AS sessionId, c.depth, c.summarized_through_turn_id AS summarizedThroughTurnId,
              c.first_kept_turn_id AS firstKeptTurnId, c.previous_compaction_id AS previousCompactionId,
              c.covers_from_depth AS coversFromDepth, c.summarized_through_depth AS summarizedThroughDepth,
              (t.id IS NOT NULL) AS throughExists, t.depth AS throughDepth, k.depth AS keptDepth
       FROM agent_turns c
       LEFT JOIN agent_turns t ON t.id = c.summarized_through_turn_id
       LEFT JOIN agent_turns k ON k.id = c.first_kept_turn_id
       WHERE c.turn_type = 'compaction' ORDER BY c.session_id, c.depth`,
    )
    .all() as CompactionRow[];
  let previousInSession: CompactionRow | null = null;
  for (const compaction of compactions) {
    const problem = (code: string, message: string, ids: string[]) =>
      problems.push({ code, message, ids: [compaction.id, ...ids] });
    if (!compaction.throughExists)
      problem('UNRESOLVED_ID', `summarizedThroughTurnId ${compaction.summarizedThroughTurnId} names no turn.`, []);
    if (compaction.previousCompactionId === compaction.id) problem('SELF_COMPACTION', 'the compaction folds itself in.', []);
    if (compaction.throughDepth !== null && compaction.throughDepth >= compaction.depth) {
      problem('NOT_BEFORE', 'it summarizes a turn that is not before it.', [compaction.summarizedThroughTurnId]);
    }
    if (compaction.keptDepth !== null && compaction.throughDepth !== null && compaction.keptDepth <= compaction.throughDepth) {
      problem('KEPT_BEFORE_SUMMARIZED', 'firstKeptTurnId is not after summarizedThroughTurnId.', [
        compaction.firstKeptTurnId ?? '',
      ]);
    }
    const sameSession = previousInSession?.sessionId === compaction.sessionId ? previousInSession : null;
    if (
      sameSession?.summarizedThroughDepth != null &&
      compaction.coversFromDepth !== null &&
      compaction.coversFromDepth <= sameSession.summarizedThroughDepth &&
      compaction.coversFromDepth > 0 &&
      compaction.previousCompactionId === sameSession.id
    ) {
      problem(
        'TWO_COMPACTORS',
        `turns at depth ${compaction.coversFromDepth}–${sameSession.summarizedThroughDepth} are summarized by two compactions.`,
        [sameSession.id],
      );
    }
    previousInSession = compaction;
  }
  problems.push(...checkForests(ledger));
  for (const call of findDanglingToolCalls(ledger)) {
    problems.push({
      code: 'DANGLING_TOOL_CALL',
      message:
        `tool call ${call.toolUseIds.join(', ')} of turn ${call.turnId} (session ${call.sessionId}) was never answered; ` +
        'contexts send an interrupted is_error result in its place.',
      ids: [call.turnId, ...call.toolUseIds],
      severity: 'warning',
    });
  }
  return problems;
}
