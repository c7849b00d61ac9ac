// What a coding agent's own compaction dropped and a new prompt needs: the turns from before the
// session's latest compaction that best answer the prompt (the recall the hybrid context uses,
// restricted to what the agent no longer sees), as text the prompt hook gives back. Nothing when the
// session never compacted or nothing dropped matches the prompt's content words.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { contentTerms } from '@agent-ledger/core';
import { importedSession, markInjected } from '@agent-ledger/transcripts';

export interface DroppedRecall {
  /** Ready for additionalContext: marked so a later import skips it (transcripts' injected-context.ts). */
  text: string;
  turnIds: string[];
  compactionId: string;
}

/** Claude Code caps additionalContext at 10,000 characters; this leaves room for the prompt's own. */
export const DEFAULT_RECALL_CHARS = 4_000;
/** Matches scoring below this share of the best match's score are left out: a word in common is not relevance. */
const MIN_RELEVANCE = 0.3;
/** About this many characters a token, to turn the character budget into recall's token budget. */
const CHARS_PER_TOKEN = 4;

export async function recallDropped(
  ledger: AgentsLedger,
  request: { sourceKey: string; prompt: string; maxChars: number },
): Promise<DroppedRecall | null> {
  const query = contentTerms(request.prompt).join(' ');
  if (query === '') return null;
  const sessionId = await importedSession(ledger, request.sourceKey);
  if (!sessionId) return null;
  const line = await currentLine(ledger, sessionId);
  if (!line.headTurnId) return null;
  const compaction = await ledger.findLatestCompaction(line.headTurnId);
  if (!compaction) return null;
  const header =
    `From the nexus ledger: turns from before this session's last compaction (${compaction.id}) that bear on the ` +
    'prompt, quoted as they were written, oldest first. The compaction summary replaced them. [id · time UTC · role] ' +
    'cites each; the nexus MCP tool expand takes an id and returns the turn in full, search_history finds more.';
  const room = request.maxChars - header.length - markInjected('').length - 1;
  if (room <= 0) return null;
  const retrieval = await ledger.retrieve(compaction.summarizedThroughTurnId, {
    query,
    sessionId: line.sessionId,
    budgetTokens: Math.floor(room / CHARS_PER_TOKEN),
    minRelevance: MIN_RELEVANCE,
  });
  // Best first until the room is full, then shown in conversation order.
  const kept: typeof retrieval.pieces = [];
  let used = 0;
  for (const piece of retrieval.pieces) {
    if (used + piece.text.length + 1 > room) continue;
    kept.push(piece);
    used += piece.text.length + 1;
  }
  if (kept.length === 0) return null;
  const inOrder = retrieval.pieces.filter((piece) => kept.includes(piece));
  const ordered = orderOfText(retrieval.text, inOrder);
  return {
    text: markInjected(`${header}\n${ordered.map((piece) => piece.text).join('\n')}`),
    turnIds: ordered.flatMap((piece) => piece.turnIds),
    compactionId: compaction.id,
  };
}

/** The pieces in the order the retrieval's text (conversation order) has them. */
function orderOfText<Piece extends { text: string }>(text: string, pieces: Piece[]): Piece[] {
  return [...pieces].sort((left, right) => text.indexOf(left.text) - text.indexOf(right.text));
}

/**
 * The line the agent is on now: the source's session, or the fork of it (a rewind, a branch) that
 * was written to last.
 */
async function currentLine(ledger: AgentsLedger, sessionId: string): Promise<{ sessionId: string; headTurnId: string | null }> {
  const tree = await ledger.tree(sessionId);
  const sessions = [tree];
  for (let index = 0; index < sessions.length; index += 1) sessions.push(...(sessions[index]?.forks ?? []));
  if (sessions.length === 1) return { sessionId, headTurnId: tree.session.headTurnId };
  let newest = { sessionId, headTurnId: tree.session.headTurnId, time: Number.NEGATIVE_INFINITY };
  for (const node of sessions) {
    if (!node.session.headTurnId) continue;
    const head = await ledger.getTurn(node.session.headTurnId);
    if (head.timestamp > newest.time) newest = { sessionId: node.session.id, headTurnId: head.id, time: head.timestamp };
  }
  return { sessionId: newest.sessionId, headTurnId: newest.headTurnId };
}
