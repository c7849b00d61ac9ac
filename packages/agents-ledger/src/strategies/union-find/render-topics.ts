// How topics appear in a context. One function per block, so the tokens a topic records are the
// tokens it costs when injected. Every block carries its topic id (to expand it), its time span
// (temporal questions need dates) and the note-store spec's compacts=N / compaction=P% annotations.

import type { TokenCounter } from '@agent-ledger/core';
import { compactionPercentOf } from '../../summary-block.ts';

export interface TopicBlockInput {
  id: string;
  members: number;
  memberTokens: number;
  summary: string | null;
  absorbedSummaries: readonly string[];
  /** Members not folded into the summary yet, shown raw so nothing they said is lost. */
  pendingLines: ReadonlyArray<{ id: string; text: string }>;
  firstTimestamp: number;
  lastTimestamp: number;
}

export function renderTopicBlock(
  topic: TopicBlockInput,
  tokenCounter: TokenCounter,
): { block: string; compactionPercent: number } {
  const body = [
    ...(topic.summary ? [topic.summary] : []),
    ...topic.absorbedSummaries,
    ...topic.pendingLines.map((line) => `[${line.id}] ${line.text.replace(/\s+/g, ' ').trim()}`),
  ].join('\n');
  const compactionPercent = compactionPercentOf(tokenCounter.countText(body), topic.memberTokens);
  const unsummarized = topic.pendingLines.length > 0 ? ` · ${topic.pendingLines.length} not summarized yet` : '';
  // Short on purpose: up to maxClusters of these headers sit in every context.
  const header = `[topic ${topic.id} · ${timeSpan(topic.firstTimestamp, topic.lastTimestamp)} · compacts=${topic.members} compaction=${compactionPercent}%${unsummarized}]`;
  return { block: body ? `${header}\n${body}` : header, compactionPercent };
}

export function renderTopicsHeader(compactionId: string, summarizedThroughTurnId: string): string {
  return (
    `Topics of the earlier conversation (compaction ${compactionId}, through turn ${summarizedThroughTurnId}; ` +
    '[id] cites a turn; times UTC; compacts=N: turns a topic stands for, expandable by its id):'
  );
}

function timeSpan(from: number, to: number): string {
  const format = (time: number) => new Date(time).toISOString().slice(0, 16).replace('T', ' ');
  const start = format(from);
  const end = format(to);
  if (start === end) return start;
  return start.slice(0, 10) === end.slice(0, 10) ? `${start}–${end.slice(11)}` : `${start} – ${end}`;
}
