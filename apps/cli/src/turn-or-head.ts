// Where a command reads at a turn, a session id is taken as that session's head: `nexus history
// s_…` is what a person means by "the history of this session".

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { InvalidInputError, LedgerError } from '@agent-ledger/core';

/** `id` when it names a turn; the head turn of the session it names otherwise. */
export async function turnIdOrHead(ledger: AgentsLedger, id: string): Promise<string> {
  try {
    await ledger.getTurn(id);
    return id;
  } catch (error) {
    if (!LedgerError.isInstance(error) || error.code !== 'TURN_NOT_FOUND') throw error;
    const session = await ledger.getSession(id).catch(() => null);
    if (!session) throw error;
    if (!session.headTurnId)
      throw new InvalidInputError(`session ${id} has no turns yet, so it has no head to read at: append a turn first.`);
    return session.headTurnId;
  }
}

/** The argument's name in usage lines: a turn id, or a session id for its head. */
export const TURN_OR_SESSION = '<turnId|sessionId>';
