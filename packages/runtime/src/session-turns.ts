// Reading the session for runTurn and respond: the turn that recorded an inbound event, and the
// user turn still awaiting an answer.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import type { NormalTurn } from '@agent-ledger/core';

/** The user turn of this session citing the event, if one was recorded. */
export async function turnCiting(ledger: AgentsLedger, sessionId: string, eventId: string): Promise<NormalTurn | null> {
  for (const turnId of await ledger.turnsCiting(eventId)) {
    const turn = await ledger.getTurn(turnId);
    if (turn.turnType === 'normal' && turn.sessionId === sessionId) return turn;
  }
  return null;
}

/**
 * The user turn awaiting an answer: the newest normal turn, past any compaction linked in after
 * it, when a user wrote it. Null when the newest normal turn is the assistant's.
 */
export async function awaitingAnswer(ledger: AgentsLedger, sessionId: string): Promise<NormalTurn | null> {
  let turnId = (await ledger.getSession(sessionId)).headTurnId;
  while (turnId) {
    const turn = await ledger.getTurn(turnId);
    if (turn.turnType === 'normal') return turn.role === 'user' ? turn : null;
    turnId = turn.parentTurnId;
  }
  return null;
}
