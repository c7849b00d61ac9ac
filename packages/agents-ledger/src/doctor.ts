// Checks the agents ledger's invariants on what is stored, for `nexus doctor`: the search index
// agrees with the turns, and every compaction is well formed (its pointers resolve, it never
// compacts itself, it summarizes turns before the ones it keeps, and on each session's line every
// turn has at most one compactor), and each strategy checks the state it keeps (its `check`).
// Reports problems as data; never repairs anything.

import type { CompactionPointers, LinePosition } from '@agent-ledger/store';
import { findDanglingToolCalls } from './check-tool-calls.ts';
import type { LedgerContext } from './ledger-context.ts';
import type { Problem } from './problem.ts';

export type { Problem } from './problem.ts';

/** Compactions read per page of the scan: memory stays flat however many the ledger holds. */
const SCAN_PAGE = 500;

export async function checkLedger(ledger: LedgerContext): Promise<Problem[]> {
  const { store } = ledger;
  const problems: Problem[] = [];
  const indexProblem = await store.checkTurnSearchIndex();
  if (indexProblem !== null) {
    problems.push({
      code: 'SEARCH_INDEX_MISMATCH',
      message: `The turn search index does not match the turns (${indexProblem}).`,
      ids: [],
    });
  }
  let previousInSession: CompactionPointers | null = null;
  for await (const compaction of scan((page) => store.compactionPointers(page))) {
    const problem = (code: string, message: string, ids: string[]) =>
      problems.push({ code, message, ids: [compaction.id, ...ids] });
    if (!compaction.throughExists)
      problem('UNRESOLVED_ID', `summarizedThroughTurnId ${compaction.summarizedThroughTurnId} names no turn.`, []);
    if (compaction.previousCompactionId === compaction.id) problem('SELF_COMPACTION', 'the compaction folds itself in.', []);
    if (compaction.throughDepth !== null && compaction.throughDepth >= compaction.depth) {
      problem('NOT_BEFORE', 'it summarizes a turn that is not before it.', [compaction.summarizedThroughTurnId]);
    }
    if (compaction.keptDepth !== null && compaction.throughDepth !== null && compaction.keptDepth <= compaction.throughDepth) {
      problem('KEPT_BEFORE_SUMMARIZED', 'firstKeptTurnId is not after summarizedThroughTurnId.', [
        compaction.firstKeptTurnId ?? '',
      ]);
    }
    const sameSession: CompactionPointers | null =
      previousInSession?.sessionId === compaction.sessionId ? previousInSession : null;
    if (
      sameSession?.summarizedThroughDepth != null &&
      compaction.coversFromDepth !== null &&
      compaction.coversFromDepth <= sameSession.summarizedThroughDepth &&
      compaction.coversFromDepth > 0 &&
      compaction.previousCompactionId === sameSession.id
    ) {
      problem(
        'TWO_COMPACTORS',
        `turns at depth ${compaction.coversFromDepth}–${sameSession.summarizedThroughDepth} are summarized by two compactions.`,
        [sameSession.id],
      );
    }
    previousInSession = compaction;
  }
  const environment = { store, tokenCounter: ledger.tokenCounter };
  for (const strategy of ledger.strategies.values()) problems.push(...((await strategy.check?.(environment)) ?? []));
  for (const call of await findDanglingToolCalls(ledger)) {
    problems.push({
      code: 'DANGLING_TOOL_CALL',
      message:
        `tool call ${call.toolUseIds.join(', ')} of turn ${call.turnId} (session ${call.sessionId}) was never answered; ` +
        'contexts send an interrupted is_error result in its place.',
      ids: [call.turnId, ...call.toolUseIds],
      severity: 'warning',
    });
  }
  return problems;
}

/** Every row of a scan over (sessionId, depth), a page at a time. */
export async function* scan<Row extends LinePosition>(
  read: (page: { after?: LinePosition; limit: number }) => Promise<Row[]>,
  limit = SCAN_PAGE,
): AsyncGenerator<Row> {
  let after: LinePosition | undefined;
  for (;;) {
    const page = await read(after ? { after, limit } : { limit });
    yield* page;
    const last = page.at(-1);
    if (!last || page.length < limit) return;
    after = { sessionId: last.sessionId, depth: last.depth };
  }
}
