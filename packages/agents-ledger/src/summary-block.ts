// How a compaction's summary appears in a context. One function, so the tokens a compaction turn
// records are the tokens it really costs when sent. Flat summaries carry the note-store spec's
// compacts=N / compaction=P% in their header; union-find summaries carry them on each topic.

import type { CompactionTurn } from '@agent-ledger/core';
import { renderTopicsHeader } from './topics/render-topics.ts';

export type RenderableCompaction = Pick<CompactionTurn, 'id' | 'summary' | 'summarizedThroughTurnId'> &
  Partial<Pick<CompactionTurn, 'strategy' | 'metadata'>>;

export function renderSummaryBlock(compaction: RenderableCompaction): string {
  if (compaction.strategy === 'union-find') {
    return `${renderTopicsHeader(compaction.id, compaction.summarizedThroughTurnId)}\n${compaction.summary}`;
  }
  const compacts = compaction.metadata?.compacts;
  const percent = compaction.metadata?.compactionPercent;
  const annotations =
    typeof compacts === 'number' && typeof percent === 'number' ? `compacts=${compacts} compaction=${percent}%; ` : '';
  return (
    `Summary of the earlier conversation (compaction ${compaction.id}, through turn ${compaction.summarizedThroughTurnId}; ` +
    `${annotations}[id] marks the turn a line came from):\n${compaction.summary}`
  );
}
