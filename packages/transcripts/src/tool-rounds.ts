// A parallel tool round is written a line per call: the calls in one assistant message (or a line
// each), then one result line per call. A transcript read while its tool is still writing it may end
// part-way through the results; each reader holds such a round back (an `unfinished` entry) so the
// next import reads it whole, as an import of the finished file does.

import { type ContentBlock, toolResultIds, toolUseIds } from '@agent-ledger/core';

/** The calls a turn's blocks make, for the results that must follow. */
export function callsOf(blocks: readonly ContentBlock[]): string[] {
  return toolUseIds(blocks);
}

/** True when the results answer every call. */
export function answersEveryCall(results: readonly ContentBlock[], calls: readonly string[]): boolean {
  const answered = new Set(toolResultIds(results));
  return calls.every((id) => answered.has(id));
}
