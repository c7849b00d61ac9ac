// Appending turns. The session head moves by compare-and-set inside one IMMEDIATE transaction, so
// two writers can never both extend the same head: the second gets a HeadConflictError.

import {
  type ContentBlock,
  contentText,
  countContentTokens,
  HeadConflictError,
  InvalidInputError,
  MessageTooLargeError,
  type NormalTurn,
  type Role,
  toolResultIds,
  toolUseIds,
} from '@nexus/core';
import { type AgentTurnRow, type LedgerDrizzle, type NewAgentTurnRow, turnWrites } from '@nexus/db';
import type { LedgerContext } from './ledger-context.ts';
import { requireSessionRow, requireTurnRow } from './store/chain.ts';
import { linkEvents, requireEvents } from './store/event-links.ts';
import { turnFromRow } from './store/row-mapping.ts';
import {
  validateBlocksForRole,
  validateContent,
  validateEventIds,
  validateMetadata,
  validateRole,
  validateTimestamp,
} from './validate-input.ts';

export interface AppendTurnInput {
  role: Role;
  content: string | ContentBlock[];
  /**
   * The head the caller last saw. When given and the session has moved on, the append fails with
   * HeadConflictError instead of silently branching or reordering.
   */
  expectedHeadTurnId?: string | null;
  model?: string;
  /** Milliseconds since the epoch; defaults to the ledger's clock. */
  timestamp?: number;
  metadata?: Record<string, unknown>;
  /** Events this turn cites (ids from the events ledger); each must exist. */
  eventIds?: string[];
}

export function appendTurns(ledger: LedgerContext, sessionId: string, inputs: readonly AppendTurnInput[]): NormalTurn[] {
  // Validate everything before the transaction opens: a bad item rejects the whole batch.
  const prepared = inputs.map((input) => {
    const role = validateRole(input.role);
    const content = validateContent(input.content);
    validateBlocksForRole(role, content);
    return {
      input,
      role,
      content,
      timestamp: validateTimestamp(input.timestamp),
      metadata: validateMetadata(input.metadata),
      eventIds: validateEventIds(input.eventIds),
    };
  });
  const rows = ledger.database.transaction((db) => {
    const session = requireSessionRow(db, sessionId);
    let head = session.headTurnId ? requireTurnRow(db, session.headTurnId) : null;
    const written: Array<{ row: AgentTurnRow; eventIds: string[] }> = [];
    for (const { input, role, content, timestamp, metadata, eventIds } of prepared) {
      if (input.expectedHeadTurnId !== undefined && input.expectedHeadTurnId !== (head?.id ?? null)) {
        // A head that is no turn at all is a typo, not a race: say so rather than "another writer".
        if (input.expectedHeadTurnId !== null) requireTurnRow(db, input.expectedHeadTurnId);
        throw new HeadConflictError(sessionId, input.expectedHeadTurnId, head?.id ?? null);
      }
      refuseSecondResults(db, head, content);
      const tokenCount = countContentTokens(ledger.tokenCounter, content);
      if (tokenCount > session.contextWindow) throw new MessageTooLargeError(tokenCount, session.contextWindow);
      const row = insertTurnAfter(ledger, db, sessionId, head, {
        role,
        content,
        model: input.model ?? null,
        tokenCount,
        timestamp: timestamp ?? ledger.now(),
        toolCallCount: toolUseIds(content).length,
        metadata: metadata ?? null,
        turnType: 'normal',
      });
      requireEvents(db, eventIds);
      linkEvents(db, row.id, eventIds);
      written.push({ row, eventIds });
      head = row;
    }
    return written;
  });
  return rows.map(({ row, eventIds }) => turnFromRow(row, eventIds) as NormalTurn);
}

/** How far back along the chain a tool_result looks for an earlier result to the same call. */
const RESULT_LOOKBACK_TURNS = 64;

/**
 * A tool call gets one result: the API refuses a context that answers it twice. Looks back from
 * the head only until the call itself (results follow their call closely), so the cost stays
 * constant however long the history.
 */
function refuseSecondResults(db: LedgerDrizzle, head: AgentTurnRow | null, content: readonly ContentBlock[]): void {
  const ids = toolResultIds(content);
  if (ids.length === 0) return;
  const wanted = new Set<string>();
  for (const id of ids) {
    if (wanted.has(id)) throw secondResult(id, 'this same turn');
    wanted.add(id);
  }
  let turn = head;
  for (let step = 0; turn && wanted.size > 0 && step < RESULT_LOOKBACK_TURNS; step += 1) {
    if (turn.turnType === 'normal' && Array.isArray(turn.content)) {
      const blocks = turn.content as ContentBlock[];
      for (const id of toolResultIds(blocks)) if (wanted.has(id)) throw secondResult(id, `turn ${turn.id}`);
      for (const id of toolUseIds(blocks)) wanted.delete(id);
    }
    turn = turn.parentTurnId ? requireTurnRow(db, turn.parentTurnId) : null;
  }
}

function secondResult(toolUseId: string, where: string): InvalidInputError {
  return new InvalidInputError(
    `A second tool_result for tool call ${toolUseId}: ${where} already answered it, and a call gets exactly one result. ` +
      'Nothing was written; send the new information as text instead.',
    'content',
  );
}

type TurnFields = { id?: string } & Omit<
  NewAgentTurnRow,
  'id' | 'sessionId' | 'parentTurnId' | 'depth' | 'latestCompactionId' | 'cumulativeTokens' | 'hasChildren' | 'searchText'
>;

/**
 * Inserts one turn as the child of `head` and moves the session head to it. Must run inside a
 * transaction; the derived columns (depth, latest compaction, cumulative tokens) are set here and
 * nowhere else.
 */
export function insertTurnAfter(
  ledger: LedgerContext,
  db: LedgerDrizzle,
  sessionId: string,
  head: AgentTurnRow | null,
  fields: TurnFields,
): AgentTurnRow {
  const id = fields.id ?? ledger.generateId('turn');
  const isCompaction = fields.turnType === 'compaction';
  const inheritedCompaction = head ? (head.turnType === 'compaction' ? head.id : head.latestCompactionId) : null;
  const row: AgentTurnRow = {
    role: null,
    content: null,
    model: null,
    toolCallCount: 0,
    metadata: null,
    summary: null,
    summarizedThroughTurnId: null,
    firstKeptTurnId: null,
    tokensBefore: null,
    tokensAfter: null,
    trigger: null,
    strategy: null,
    summarizer: null,
    usageInputTokens: null,
    usageOutputTokens: null,
    coversFromDepth: null,
    previousCompactionId: null,
    summarizedThroughDepth: null,
    turnType: 'normal',
    ...fields,
    searchText: searchTextOf(fields),
    id,
    sessionId,
    parentTurnId: head?.id ?? null,
    depth: head ? head.depth + 1 : 0,
    hasChildren: false,
    latestCompactionId: isCompaction ? id : inheritedCompaction,
    cumulativeTokens: (head?.cumulativeTokens ?? 0) + (isCompaction ? 0 : fields.tokenCount),
  };
  const writes = turnWrites(ledger.database);
  writes.insertTurn(row);
  if (head && !head.hasChildren) writes.markHasChildren(head.id);
  if (!writes.moveHead(sessionId, head?.id ?? null, id)) {
    const actual = requireSessionRow(db, sessionId).headTurnId;
    throw new HeadConflictError(sessionId, head?.id ?? null, actual);
  }
  return row;
}

/** What full-text search indexes for a turn: its message as a person reads it, or its summary. */
function searchTextOf(fields: TurnFields): string | null {
  // NFKC here and on queries, so ＡＢＣ, ﬁle or ² are found by what a person types.
  if (fields.turnType === 'compaction') return fields.summary?.normalize('NFKC') ?? null;
  return Array.isArray(fields.content) ? contentText(fields.content as ContentBlock[]).normalize('NFKC') : null;
}
