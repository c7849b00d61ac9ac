// `runTurn` records what arrived (the inbound event, when it came from a channel, and the user turn
// citing it) and answers it; `respond` answers the user turn already at the session's head.

import { type ContentBlock, contentText, InvalidInputError, type NormalTurn } from '@agent-ledger/core';
import { answer } from './answer.ts';
import type { RuntimeParts } from './runtime-parts.ts';
import type { InboundMessage, RunTurnOptions, TurnResult } from './runtime-types.ts';
import { awaitingAnswer, turnCiting } from './session-turns.ts';

export async function runTurn(
  parts: RuntimeParts,
  sessionId: string,
  input: string | ContentBlock[],
  turnOptions: RunTurnOptions = {},
): Promise<TurnResult> {
  const { ledger } = parts;
  const text = typeof input === 'string' ? input : contentText(input);
  if (text.trim() === '' && typeof input === 'string')
    throw new InvalidInputError('The message is empty; type something to send.', 'input');
  await ledger.getSession(sessionId); // SessionNotFoundError before anything is written

  let eventId: string | null = null;
  if (turnOptions.inbound) {
    const { event, duplicate } = await recordInbound(parts, turnOptions.inbound, text);
    eventId = event.id;
    if (duplicate) {
      const recorded = await turnCiting(ledger, sessionId, event.id);
      if (recorded) {
        // Redelivered. If the first delivery's answer failed, its user turn still awaits one: answer
        // it now, without recording the message twice; otherwise there is nothing to do.
        const pending = await awaitingAnswer(ledger, sessionId);
        if (pending?.id !== recorded.id) return duplicateResult(sessionId, recorded, event.id);
        const result = await answer(parts, {
          sessionId,
          incoming: text,
          turnOptions,
          currentTurnIds: [recorded.id],
          appended: [],
        });
        return { ...result, userTurn: recorded, eventId };
      }
    }
  }
  const userTurn = await ledger.appendTurn(sessionId, {
    role: 'user',
    content: input,
    ...(eventId ? { eventIds: [eventId] } : {}),
  });
  const result = await answer(parts, { sessionId, incoming: text, turnOptions, appended: [userTurn] });
  return { ...result, userTurn, eventId };
}

export async function respond(
  parts: RuntimeParts,
  sessionId: string,
  turnOptions: Omit<RunTurnOptions, 'inbound'> = {},
): Promise<TurnResult> {
  const head = await awaitingAnswer(parts.ledger, sessionId);
  if (!head) {
    throw new InvalidInputError(
      `The newest turn of session ${sessionId} is not a user's (compactions aside); there is nothing to answer.`,
      'sessionId',
    );
  }
  const incoming = contentText(head.content);
  const result = await answer(parts, { sessionId, incoming, turnOptions, currentTurnIds: [head.id], appended: [] });
  return { ...result, userTurn: head, eventId: head.eventIds[0] ?? null };
}

/** Records the inbound message as an event (a redelivery is recognised by its external id). */
async function recordInbound(parts: RuntimeParts, inbound: InboundMessage, text: string) {
  const { events } = parts.options;
  if (!events) throw new InvalidInputError('runTurn got an inbound message but the runtime has no events ledger.', 'inbound');
  return events.append({
    channel: inbound.channel,
    externalId: inbound.externalId,
    author: inbound.author ?? null,
    kind: 'message',
    payload: { text },
    ...(inbound.occurredAt !== undefined ? { occurredAt: inbound.occurredAt } : {}),
  });
}

function duplicateResult(sessionId: string, userTurn: NormalTurn, eventId: string): TurnResult {
  return {
    sessionId,
    userTurn,
    reply: null,
    text: '',
    turns: [],
    eventId,
    duplicate: true,
    context: { tokens: 0, budgetTokens: 0, compactionTurnId: null, retrievedTurnIds: [], messages: 0 },
    overflowCompaction: null,
    usage: { inputTokens: 0, outputTokens: 0 },
    modelCalls: 0,
  };
}
