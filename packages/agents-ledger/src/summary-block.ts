// How a compaction's summary appears in a context. One function, so the tokens a compaction turn
// records are the tokens it really costs when sent. The strategy that wrote the compaction may render
// it its own way (union-find: the topics header); otherwise the plain block, which carries the
// note-store spec's compacts=N / compaction=P% in its header.

import type { CompactionStrategy, RenderableCompaction } from './strategies/compaction-strategy.ts';

export type { RenderableCompaction } from './strategies/compaction-strategy.ts';

/** The block a context sends for `compaction`, as `strategy` (the one that wrote it) renders it. */
export function renderSummaryBlock(
  compaction: RenderableCompaction,
  strategy?: Pick<CompactionStrategy, 'renderSummary'>,
): string {
  return strategy?.renderSummary?.(compaction) ?? plainSummaryBlock(compaction);
}

function plainSummaryBlock(compaction: RenderableCompaction): string {
  const compacts = compaction.metadata?.compacts;
  const percent = compaction.metadata?.compactionPercent;
  const annotations =
    typeof compacts === 'number' && typeof percent === 'number' ? `compacts=${compacts} compaction=${percent}%; ` : '';
  return (
    `Summary of the earlier conversation (compaction ${compaction.id}, through turn ${compaction.summarizedThroughTurnId}; ` +
    `${annotations}[id] marks the turn a line came from):\n${compaction.summary}`
  );
}

/** The note-store spec's metric: 100 × (1 − digest size / expanded size), 0 when nothing was expanded. */
export function compactionPercentOf(digestTokens: number, sourceTokens: number): number {
  if (sourceTokens <= 0) return 0;
  return Math.max(0, Math.round(100 * (1 - digestTokens / sourceTokens)));
}
