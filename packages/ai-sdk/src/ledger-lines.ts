// Which ledger session a conversation is on now. An app that edits or regenerates a message sends a
// history that leaves the recorded line part-way; the middleware then forks at the last message both
// share (nothing recorded is ever rewritten) and the conversation goes on in the fork. The session id
// the app passes stays the conversation's name: this remembers its newest fork in the process, and a
// new process finds it again among the session's forks.

import type { AgentsLedger, SessionTree } from '@agent-ledger/agents-ledger';
import type { NormalTurn } from '@agent-ledger/core';

/** Fork labels the middleware writes, so a later process can tell its forks from others. */
export const FORK_LABEL_MARK = 'ai-sdk: continued after an edit';

export class LedgerLines {
  private readonly current = new Map<string, string>();

  constructor(private readonly ledger: AgentsLedger) {}

  /** The session the conversation named `sessionId` was last written to in this process. */
  remembered(sessionId: string): string {
    return this.current.get(sessionId) ?? sessionId;
  }

  /** Whether this process has written the conversation already. */
  knows(sessionId: string): boolean {
    return this.current.has(sessionId);
  }

  remember(sessionId: string, lineSessionId: string): void {
    this.current.set(sessionId, lineSessionId);
  }

  /** The session and its forks made by the middleware, newest first: where a cold process looks. */
  async candidates(sessionId: string): Promise<string[]> {
    const found: Array<{ id: string; createdAt: number }> = [];
    const visit = (node: SessionTree, isRoot: boolean) => {
      if (isRoot || node.session.label?.includes(FORK_LABEL_MARK))
        found.push({ id: node.session.id, createdAt: node.session.createdAt });
      for (const fork of node.forks) visit(fork, false);
    };
    visit(await this.ledger.tree(sessionId), true);
    return found.sort((left, right) => right.createdAt - left.createdAt).map((each) => each.id);
  }
}

/** Up to `limit` normal turns of a line, newest first, from its head (compaction turns skipped). */
export async function recentNormalTurns(ledger: AgentsLedger, headTurnId: string | null, limit: number): Promise<NormalTurn[]> {
  const turns: NormalTurn[] = [];
  let turnId = headTurnId;
  while (turnId && turns.length < limit) {
    const turn = await ledger.getTurn(turnId);
    if (turn.turnType === 'normal') turns.push(turn);
    turnId = turn.parentTurnId;
  }
  return turns;
}
