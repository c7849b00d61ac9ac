// Finds tool calls that were never answered: an assistant turn with tool_use blocks whose next
// normal turn, on its own session's line or on a fork made at it, carries no tool_result for them
// (a crash between a call and its result, or a user who wrote on). Contexts stay valid anyway
// (context/pair-tool-calls.ts sends an interrupted result in their place); doctor warns so a person
// knows which calls never ran to the end.

import { type ContentBlock, toolResultIds, toolUseIds } from '@nexus/core';
import type { LedgerContext } from './ledger-context.ts';

export interface DanglingToolCall {
  turnId: string;
  sessionId: string;
  toolUseIds: string[];
}

interface CallingTurn {
  id: string;
  sessionId: string;
  depth: number;
  content: string;
}

export function findDanglingToolCalls(ledger: LedgerContext): DanglingToolCall[] {
  const { sqlite } = ledger.database;
  const forksAt = new Map<string, string[]>();
  const forks = sqlite
    .prepare('SELECT id, forked_from_turn_id AS turnId FROM agent_sessions WHERE forked_from_turn_id IS NOT NULL')
    .all() as Array<{
    id: string;
    turnId: string;
  }>;
  for (const fork of forks) forksAt.set(fork.turnId, [...(forksAt.get(fork.turnId) ?? []), fork.id]);
  // The next few turns after a depth on one session's line; compactions linked in are skipped.
  const nextTurns = sqlite.prepare(
    'SELECT turn_type AS turnType, role, content FROM agent_turns WHERE session_id = ? AND depth > ? ORDER BY depth LIMIT 8',
  );
  const calling = sqlite
    .prepare(
      "SELECT id, session_id AS sessionId, depth, content FROM agent_turns WHERE turn_type = 'normal' AND tool_call_count > 0 ORDER BY session_id, depth",
    )
    .iterate() as Iterable<CallingTurn>;
  const dangling: DanglingToolCall[] = [];
  for (const turn of calling) {
    const calls = toolUseIds(JSON.parse(turn.content) as ContentBlock[]);
    for (const sessionId of [turn.sessionId, ...(forksAt.get(turn.id) ?? [])]) {
      const rows = nextTurns.all(sessionId, turn.depth) as Array<{ turnType: string; role: string; content: string | null }>;
      const next = rows.find((row) => row.turnType === 'normal');
      const answered = new Set(
        next?.role === 'user' && next.content ? toolResultIds(JSON.parse(next.content) as ContentBlock[]) : [],
      );
      const open = calls.filter((id) => !answered.has(id));
      // A fork with no turn of its own yet continues nothing: only its own line can leave a call open.
      if (open.length > 0 && (next || sessionId === turn.sessionId)) {
        dangling.push({ turnId: turn.id, sessionId, toolUseIds: open });
      }
    }
  }
  return dangling;
}
