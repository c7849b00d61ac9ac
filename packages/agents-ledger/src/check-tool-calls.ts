// Finds tool calls that were never answered: an assistant turn with tool_use blocks whose next
// normal turn, on its own session's line or on a fork made at it, carries no tool_result for them
// (a crash between a call and its result, or a user who wrote on). Contexts stay valid anyway
// (context/pair-tool-calls.ts sends an interrupted result in their place); doctor warns so a person
// knows which calls never ran to the end. A subagent's conversation (its turns carry
// metadata.subagent: an imported Claude Code subagent) is a fork at the call that started it: the
// call is answered on its own line, and the fork is that call's work, not a line that left it open.

import { type ContentBlock, toolResultIds, toolUseIds } from '@agent-ledger/core';
import type { LinePosition } from '@agent-ledger/store';
import type { LedgerContext } from './ledger-context.ts';

export interface DanglingToolCall {
  turnId: string;
  sessionId: string;
  toolUseIds: string[];
}

/** Calling turns read per page of the scan. */
const SCAN_PAGE = 200;
/** How far past a call its answer is looked for on a line (compactions linked in are skipped). */
const LOOK_AHEAD = 8;

export async function findDanglingToolCalls(ledger: LedgerContext): Promise<DanglingToolCall[]> {
  const { store } = ledger;
  const dangling: DanglingToolCall[] = [];
  let after: LinePosition | undefined;
  for (;;) {
    const calling = await store.toolCallingTurns(after ? { after, limit: SCAN_PAGE } : { limit: SCAN_PAGE });
    const forksAt = await store.sessionsForkedAt(calling.map((turn) => turn.id));
    for (const turn of calling) {
      const calls = toolUseIds(turn.content as ContentBlock[]);
      for (const sessionId of [turn.sessionId, ...(forksAt.get(turn.id) ?? [])]) {
        // The next few turns after the call on one session's line.
        const rows = await store.chainPage({
          sessionId,
          fromDepth: turn.depth + 1,
          toDepth: turn.depth + LOOK_AHEAD,
          limit: LOOK_AHEAD,
        });
        const next = rows.find((row) => row.turnType === 'normal');
        if (sessionId !== turn.sessionId && isSubagentTurn(next?.metadata)) continue;
        const answered = new Set(next?.role === 'user' && next.content ? toolResultIds(next.content as ContentBlock[]) : []);
        const open = calls.filter((id) => !answered.has(id));
        // A fork with no turn of its own yet continues nothing: only its own line can leave a call open.
        if (open.length > 0 && (next || sessionId === turn.sessionId)) {
          dangling.push({ turnId: turn.id, sessionId, toolUseIds: open });
        }
      }
    }
    const last = calling.at(-1);
    if (!last || calling.length < SCAN_PAGE) return dangling;
    after = { sessionId: last.sessionId, depth: last.depth };
  }
}

function isSubagentTurn(metadata: unknown): boolean {
  return typeof metadata === 'object' && metadata !== null && 'subagent' in metadata;
}
