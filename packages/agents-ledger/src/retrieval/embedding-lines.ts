// Which lines the embedding operations walk: one session's line up to its head (its own turns and,
// for a fork, those before its fork point), or every session's own turns, so that over the whole
// ledger each turn is read once (a fork's inherited turns belong to the session it was forked from).

import type { StoreOperations } from '@agent-ledger/store';
import { type ChainSegment, chainSegments, requireSessionRow, requireTurnRow } from '../store/chain.ts';

const SESSION_PAGE = 500;

/** The lines to walk: the session's line when one is named, else each session's own turns. */
export async function embeddingLines(store: StoreOperations, sessionId: string | undefined): Promise<ChainSegment[][]> {
  return sessionId === undefined ? everySessionsOwnTurns(store) : [await sessionLine(store, sessionId)];
}

async function sessionLine(store: StoreOperations, sessionId: string): Promise<ChainSegment[]> {
  const session = await requireSessionRow(store, sessionId);
  if (!session.headTurnId) return [];
  return chainSegments(store, await requireTurnRow(store, session.headTurnId), session);
}

async function everySessionsOwnTurns(store: StoreOperations): Promise<ChainSegment[][]> {
  const lines: ChainSegment[][] = [];
  for (let offset = 0; ; offset += SESSION_PAGE) {
    const page = await store.listSessions({ limit: SESSION_PAGE, offset });
    for (const session of page) {
      const head = session.headTurnId ? await store.getTurn(session.headTurnId) : null;
      // A fork with no turn of its own yet has its head in the session it was forked from.
      lines.push(head && head.sessionId === session.id ? [{ sessionId: session.id, fromDepth: 0, toDepth: head.depth }] : []);
    }
    if (page.length < SESSION_PAGE) return lines;
  }
}
