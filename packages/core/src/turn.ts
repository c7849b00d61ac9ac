// The ledger's entries. A turn is a discriminated union on `turnType`: every reader switches on
// that one field. Field names follow the compaction-as-turn spec.

import type { ContentBlock, Role } from './content.ts';

export type TurnType = 'normal' | 'compaction';
export type CompactionTrigger = 'threshold' | 'overflow' | 'manual';

interface TurnBase {
  id: string;
  sessionId: string;
  parentTurnId: string | null;
  /** Position in the parent chain: the root is 0. Ordering and ancestry checks use it. */
  depth: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Estimated tokens of what this turn adds to a context (its message, or its summary). */
  tokenCount: number;
  /** True once any turn, in any session, names this one as its parent. */
  hasChildren: boolean;
  metadata: Record<string, unknown> | null;
}

export interface NormalTurn extends TurnBase {
  turnType: 'normal';
  role: Role;
  content: ContentBlock[];
  model: string | null;
  /** How many tool_use blocks this turn holds. */
  toolCallCount: number;
  /** Events of the events ledger this turn cites (the inbound message it answers, say). */
  eventIds: string[];
}

export interface CompactionTurn extends TurnBase {
  turnType: 'compaction';
  /** Stands in, in a context, for every turn up to `summarizedThroughTurnId`. */
  summary: string;
  /** The last turn the summary covers. */
  summarizedThroughTurnId: string;
  /** Where raw turns resume in a context; null when the compaction kept no raw turn. */
  firstKeptTurnId: string | null;
  /** Tokens of the context before this compaction (previous summary + raw turns). */
  tokensBefore: number;
  /** Tokens of the context right after it (this summary + kept turns). */
  tokensAfter: number;
  trigger: CompactionTrigger;
  strategy: string;
  /** Which summarizer wrote the summary, and what it cost. */
  summarizer: string;
  usage: SummarizerUsage;
}

export type Turn = NormalTurn | CompactionTurn;

export interface SummarizerUsage {
  inputTokens: number;
  outputTokens: number;
}

export function isCompaction(turn: Turn): turn is CompactionTurn {
  return turn.turnType === 'compaction';
}
