// Doctor's check of the turns' hash chains: every turn's hash is recomputed from its stored fields,
// its cited events and its parent's stored hash (each parent is itself checked against its own
// parent, so the whole line is checked link by link), and every session's head is checked against
// the session's own turns. What no chain can show — turns cut from the end with the head moved back
// to match, a session emptied — needs a checkpoint (turns-checkpoint.ts).

import { type HashedTurnRow, type LinePosition, type SessionHeadRow, type StoreOperations, turnHash } from '@agent-ledger/store';
import type { Problem } from '../problem.ts';

const PAGE = 500;

/** Findings of one kind beyond this are counted, not listed: a rewritten ledger would list every turn. */
const LISTED_PER_CODE = 20;

export interface TurnChainReport {
  problems: Problem[];
  /** Turns whose hash was recomputed. */
  turnsChecked: number;
  sessionsChecked: number;
}

export async function checkTurnChains(store: StoreOperations): Promise<TurnChainReport> {
  const findings = new Findings();
  let turnsChecked = 0;
  for await (const row of pages((after) => store.hashedTurns({ ...(after ? { after } : {}), limit: PAGE }))) {
    checkLink(row, findings);
    turnsChecked += 1;
  }
  let sessionsChecked = 0;
  let afterId: string | undefined;
  for (;;) {
    const page = await store.sessionHeads({ ...(afterId ? { afterId } : {}), limit: PAGE });
    for (const session of page) checkHead(session, findings);
    sessionsChecked += page.length;
    afterId = page.at(-1)?.sessionId;
    if (page.length < PAGE) break;
  }
  return { problems: findings.all(), turnsChecked, sessionsChecked };
}

function checkLink({ turn, parentHash, parentFound, parentDepth, eventIds }: HashedTurnRow, findings: Findings): void {
  const where = `turn ${turn.id} (session ${turn.sessionId}, depth ${turn.depth})`;
  if (turn.parentTurnId !== null && !parentFound) {
    findings.add('TURN_PARENT_MISSING', `${where}: its parent ${turn.parentTurnId} is not stored (a turn was removed).`, [
      turn.id,
    ]);
    return;
  }
  if (turn.parentTurnId !== null && parentDepth !== turn.depth - 1)
    findings.add('TURN_DEPTH_MISMATCH', `${where}: its parent is at depth ${parentDepth}, not ${turn.depth - 1}.`, [turn.id]);
  if (turn.parentTurnId === null && turn.depth !== 0)
    findings.add('TURN_DEPTH_MISMATCH', `${where}: it has no parent, so its depth must be 0.`, [turn.id]);
  if (turn.hash === null) {
    findings.add('TURN_HASH_MISSING', `${where} has no hash: every stored turn has one, so it was removed.`, [turn.id]);
    return;
  }
  if (turnHash({ turn, parentHash, eventIds }) !== turn.hash)
    findings.add(
      'TURN_HASH_MISMATCH',
      `${where} does not match its hash: its content, its place, its parent or the events it cites changed after it was written.`,
      [turn.id],
    );
}

function checkHead(session: SessionHeadRow, findings: Findings): void {
  const { sessionId, headTurnId, head, ownTurns, deepestOwnDepth, forkedFromTurnId } = session;
  if (headTurnId !== null && head === null) {
    findings.add('HEAD_UNRESOLVED', `session ${sessionId}'s head ${headTurnId} names no stored turn.`, [sessionId, headTurnId]);
    return;
  }
  if (head === null) {
    if (ownTurns > 0)
      findings.add('HEAD_MISSING', `session ${sessionId} holds ${ownTurns} turns but has no head: its head was cleared.`, [
        sessionId,
      ]);
    return;
  }
  if (head.sessionId !== sessionId) {
    // A fork that has written nothing yet stands at its fork point; any other turn is someone else's.
    if (ownTurns > 0 || headTurnId !== forkedFromTurnId)
      findings.add('HEAD_ELSEWHERE', `session ${sessionId}'s head ${headTurnId} is a turn of session ${head.sessionId}.`, [
        sessionId,
        headTurnId ?? '',
      ]);
    return;
  }
  if (deepestOwnDepth !== null && deepestOwnDepth > head.depth)
    findings.add(
      'HEAD_BEHIND',
      `session ${sessionId}'s head is at depth ${head.depth} but its turns go on to depth ${deepestOwnDepth}: the head was moved back.`,
      [sessionId, headTurnId ?? ''],
    );
}

/** Every row of the hashed-turns scan, a page at a time, in (session, depth) order. */
async function* pages(read: (after?: LinePosition) => Promise<HashedTurnRow[]>): AsyncGenerator<HashedTurnRow> {
  let after: LinePosition | undefined;
  for (;;) {
    const page = await read(after);
    yield* page;
    const last = page.at(-1);
    if (!last || page.length < PAGE) return;
    after = { sessionId: last.turn.sessionId, depth: last.turn.depth };
  }
}

/** Problems by code, each code listed up to LISTED_PER_CODE times and then counted. */
class Findings {
  private readonly listed: Problem[] = [];
  private readonly counts = new Map<string, number>();

  add(code: string, message: string, ids: string[]): void {
    const count = (this.counts.get(code) ?? 0) + 1;
    this.counts.set(code, count);
    if (count <= LISTED_PER_CODE) this.listed.push({ code, message, ids });
  }

  all(): Problem[] {
    const more = [...this.counts]
      .filter(([, count]) => count > LISTED_PER_CODE)
      .map(([code, count]) => ({ code, message: `${count - LISTED_PER_CODE} more ${code} findings not listed.`, ids: [] }));
    return [...this.listed, ...more];
  }
}
