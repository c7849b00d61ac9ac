// How recalled turns read in a context: oldest first, a dated line opening each run of turns said
// on one day (the session's date and time, once, rather than on every turn), each turn as
// `[id speaker] text`, and `…` where turns were skipped. Speakers are the importer's author names
// when there are any ("Maria", not "assistant"): personal chats are about who said what.

import { contentText, type NormalTurn, type TokenCounter } from '@agent-ledger/core';

export const RECALL_HEADER =
  'Recalled from earlier in the conversation for the new message, oldest first (a dated line opens each day; ' +
  '[id speaker] cites each turn; … marks turns left out; where two lines disagree, the later one is newer and holds):';

export interface RecalledTurn {
  turn: NormalTurn;
  /** Position on the line: consecutive depths are rendered without a gap marker. */
  depth: number;
}

export function speakerOf(turn: NormalTurn): string {
  const author = turn.metadata?.author;
  return typeof author === 'string' && author.trim() !== '' ? author.trim() : turn.role;
}

/** One turn's line, without its date. */
export function renderRecalledLine(turn: NormalTurn): string {
  return `[${turn.id} ${speakerOf(turn)}] ${contentText(turn.content).replace(/\s+/g, ' ').trim()}`;
}

/** `2023-05-08 13:56`: the minute a turn was said, UTC. */
export function minuteOf(timestamp: number): string {
  return new Date(timestamp).toISOString().slice(0, 16).replace('T', ' ');
}

/** The recalled turns as one block, header included; empty when there are none. */
export function renderRecalled(turns: readonly RecalledTurn[]): string {
  if (turns.length === 0) return '';
  const ordered = [...turns].sort((left, right) => left.depth - right.depth);
  const lines = [RECALL_HEADER];
  let day: string | null = null;
  let previousDepth: number | null = null;
  for (const { turn, depth } of ordered) {
    const minute = minuteOf(turn.timestamp);
    if (minute.slice(0, 10) !== day) {
      day = minute.slice(0, 10);
      lines.push(`(${minute} UTC)`);
    } else if (previousDepth !== null && depth > previousDepth + 1) {
      lines.push('…');
    }
    lines.push(renderRecalledLine(turn));
    previousDepth = depth;
  }
  return lines.join('\n');
}

/**
 * What adding a turn costs in the rendered block: its line, and a dated line when it opens a day.
 * Packing counts it so; the block is measured once more when it is rendered.
 */
export function recalledLineTokens(tokenCounter: TokenCounter, turn: NormalTurn): number {
  return tokenCounter.countText(renderRecalledLine(turn)) + 1;
}

export function datedLineTokens(tokenCounter: TokenCounter, timestamp: number): number {
  return tokenCounter.countText(`(${minuteOf(timestamp)} UTC)`) + 1;
}
