// How a compaction's summary appears in a context. One function, so the tokens a compaction turn
// records are the tokens it really costs when sent.

import type { CompactionTurn } from '@nexus/core';

export function renderSummaryBlock(compaction: Pick<CompactionTurn, 'id' | 'summary' | 'summarizedThroughTurnId'>): string {
  return (
    `Summary of the earlier conversation (compaction ${compaction.id}, through turn ${compaction.summarizedThroughTurnId}; ` +
    `[id] marks the turn a line came from):\n${compaction.summary}`
  );
}
