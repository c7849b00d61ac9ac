// Anchoring each session's head. The turns' hash chains prove every turn links to the one before
// it, but a line cut short (its newest turns deleted, the head moved back to match) or a session
// emptied is still a valid chain: only a record of where each head was, kept somewhere else, can
// tell. A checkpoint is that record — each session's head id, depth and hash — and verifying
// against it finds a session removed, emptied, cut short, moved back or rewritten.

import { InvalidInputError } from '@agent-ledger/core';
import type { StoreOperations } from '@agent-ledger/store';
import type { Problem } from '../problem.ts';
import { chainSegments, isOnChain } from '../store/chain.ts';

export interface SessionHeadMark {
  sessionId: string;
  /** Null for a session that was empty when the checkpoint was taken. */
  headTurnId: string | null;
  depth: number | null;
  hash: string | null;
}

const PAGE = 500;

/** Every session's head as stored now, by session id. */
export async function takeTurnsCheckpoint(store: StoreOperations): Promise<SessionHeadMark[]> {
  const marks: SessionHeadMark[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await store.sessionHeads({ ...(afterId ? { afterId } : {}), limit: PAGE });
    for (const { sessionId, headTurnId, head } of page)
      marks.push({ sessionId, headTurnId, depth: head?.depth ?? null, hash: head?.hash ?? null });
    afterId = page.at(-1)?.sessionId;
    if (page.length < PAGE) return marks;
  }
}

/** Every session of the checkpoint whose line no longer reaches its recorded head unchanged. */
export async function checkTurnsAgainstCheckpoint(store: StoreOperations, marks: readonly SessionHeadMark[]): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const mark of marks) {
    const problem = await checkMark(store, mark);
    if (problem) problems.push(problem);
  }
  return problems;
}

async function checkMark(store: StoreOperations, mark: SessionHeadMark): Promise<Problem | null> {
  const { sessionId, headTurnId } = mark;
  const session = await store.getSession(sessionId);
  const found = (code: string, message: string): Problem => ({ code, message, ids: [sessionId, headTurnId ?? ''] });
  if (!session) return found('SESSION_REMOVED', `session ${sessionId} is in the checkpoint but no longer stored.`);
  if (headTurnId === null) return null;
  const recorded = await store.getTurn(headTurnId);
  if (!recorded)
    return found(
      'TURNS_CUT',
      `turn ${headTurnId}, session ${sessionId}'s head at the checkpoint (depth ${mark.depth}), is gone: turns were removed from its end.`,
    );
  if (recorded.hash !== mark.hash)
    return found(
      'CHAIN_REWRITTEN',
      `turn ${headTurnId} (session ${sessionId}) has hash ${short(recorded.hash)}, the checkpoint recorded ${short(mark.hash)}: its line was rewritten.`,
    );
  if (session.headTurnId === null)
    return found('SESSION_EMPTIED', `session ${sessionId} has no head now; at the checkpoint its head was ${headTurnId}.`);
  const head = await store.getTurn(session.headTurnId);
  if (!head) return found('HEAD_UNRESOLVED', `session ${sessionId}'s head ${session.headTurnId} names no stored turn.`);
  let onLine: boolean;
  try {
    onLine = isOnChain(await chainSegments(store, head, session), recorded);
  } catch (error) {
    // A line whose sessions or fork points were removed cannot be read back to the recorded head.
    return found('CHAIN_UNREADABLE', `session ${sessionId}'s line cannot be read back: ${(error as Error).message}`);
  }
  if (onLine) return null;
  return head.depth < recorded.depth
    ? found(
        'HEAD_MOVED_BACK',
        `session ${sessionId}'s head is at depth ${head.depth}; at the checkpoint it was ${headTurnId} at depth ${recorded.depth}.`,
      )
    : found('HEAD_DIVERGED', `session ${sessionId}'s line no longer passes through ${headTurnId}, its head at the checkpoint.`);
}

function short(hash: string | null): string {
  return hash === null ? 'none' : `${hash.slice(0, 16)}…`;
}

/** The sessions of a checkpoint read back from JSON, checked field by field. */
export function parseSessionHeadMarks(value: unknown): SessionHeadMark[] {
  if (!Array.isArray(value))
    throw new InvalidInputError('checkpoint sessions must be a list of {sessionId, headTurnId, depth, hash}.', 'checkpoint');
  return value.map((item, index) => {
    const mark = item as Partial<SessionHeadMark> | null;
    const nullableString = (field: unknown) => field === null || typeof field === 'string';
    const ok =
      typeof mark === 'object' &&
      mark !== null &&
      typeof mark.sessionId === 'string' &&
      nullableString(mark.headTurnId) &&
      nullableString(mark.hash) &&
      (mark.depth === null || Number.isInteger(mark.depth));
    if (!ok)
      throw new InvalidInputError(
        `checkpoint sessions[${index}] needs a sessionId, a headTurnId (or null), a depth and a hash.`,
        'checkpoint',
      );
    return mark as SessionHeadMark;
  });
}
