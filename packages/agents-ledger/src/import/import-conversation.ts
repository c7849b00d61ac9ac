// Replays a conversation into a new session the way a chat runtime would: one turn per message,
// compacting whenever the session crosses its threshold. Used by `nexus import`, the demo and the
// evaluation. An empty message is skipped and listed (message-content.ts says why).

import { LedgerError, type NormalTurn, type SessionSettings, toolUseIds } from '@agent-ledger/core';
import type { AgentsLedger } from '../agents-ledger.ts';
import type { Conversation } from './conversation-file.ts';
import { importableContent } from './message-content.ts';

const SKIPPABLE = new Set(['NOTHING_TO_COMPACT', 'COMPACTION_WOULD_NOT_SHRINK']);

export interface ImportOptions {
  label?: string;
  settings?: Partial<SessionSettings>;
  strategy?: string;
  /** Called after each message with (done, total, compactions so far). */
  onProgress?: (done: number, total: number, compactions: number) => void;
  /** Called after each compaction is written. */
  onCompaction?: (compactionTurnId: string, afterMessageId: string) => void;
}

export interface ImportResult {
  sessionId: string;
  headTurnId: string | null;
  turns: number;
  compactions: number;
  /** Threshold compactions that had nothing to summarize or would not have shrunk the context. */
  skippedCompactions: number;
  /** Message id in the file → turn id in the ledger (skipped messages have none). */
  turnIds: Record<string, string>;
  /** Empty messages, which import skips (message-content.ts), in file order. */
  skippedMessageIds: string[];
}

export async function importConversation(
  ledger: AgentsLedger,
  conversation: Conversation,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const session = await ledger.createSession({
    label: options.label ?? conversation.id,
    settings: options.settings,
    strategy: options.strategy,
  });
  const turnIds: Record<string, string> = {};
  const skippedMessageIds: string[] = [];
  let compactions = 0;
  let skippedCompactions = 0;
  let lastTimestamp = 0;
  let head: string | null = null;
  for (const [index, message] of conversation.messages.entries()) {
    // Each message keeps its own time; one without a time takes the latest time seen before it.
    const parsed = message.timestamp ? Date.parse(message.timestamp) : lastTimestamp;
    lastTimestamp = Math.max(lastTimestamp, parsed);
    const content = importableContent(message.content, message.role);
    if (content === null) {
      skippedMessageIds.push(message.id);
      options.onProgress?.(index + 1, conversation.messages.length, compactions);
      continue;
    }
    const turn = await ledger.appendTurn(session.id, {
      role: message.role,
      content,
      expectedHeadTurnId: head,
      timestamp: parsed,
      metadata: { messageId: message.id, ...(message.author ? { author: message.author } : {}) },
    });
    head = turn.id;
    turnIds[message.id] = turn.id;
    // A runtime never compacts while a tool call waits for its result; neither does the replay.
    if (!awaitsToolResult(turn) && (await ledger.shouldCompact(session.id))) {
      try {
        const compaction = await ledger.compact(session.id, {
          trigger: 'threshold',
          timestamp: lastTimestamp,
        });
        head = compaction.id;
        compactions += 1;
        options.onCompaction?.(compaction.id, message.id);
      } catch (error) {
        // A runtime carries on when a compaction has nothing useful to do; so does the replay.
        if (!LedgerError.isInstance(error) || !SKIPPABLE.has(error.code)) throw error;
        skippedCompactions += 1;
      }
    }
    options.onProgress?.(index + 1, conversation.messages.length, compactions);
  }
  return {
    sessionId: session.id,
    headTurnId: head,
    turns: conversation.messages.length - skippedMessageIds.length,
    compactions,
    skippedCompactions,
    turnIds,
    skippedMessageIds,
  };
}

function awaitsToolResult(turn: NormalTurn): boolean {
  return toolUseIds(turn.content).length > 0;
}
