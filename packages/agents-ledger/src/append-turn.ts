// Appending turns: plan the rows against the head as read (no write), then one store operation
// inserts them and moves the session head by compare-and-set, so two writers can never both extend
// the same head. A caller that named the head it saw gets HeadConflictError; one that did not is
// re-planned on the new head.

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
} from '@agent-ledger/core';
import { type SessionRecord, type StoreOperations, type TurnRecord, turnHash } from '@agent-ledger/store';
import type { LedgerContext } from './ledger-context.ts';
import { requireSessionRow, requireTurnRow } from './store/chain.ts';
import { requireEvents } from './store/event-links.ts';
import { turnFromRow } from './store/row-mapping.ts';
import {
  validateBlocksForRole,
  validateContent,
  validateEventIds,
  validateMetadata,
  validateModel,
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

/**
 * How often an append without an expected head re-plans after another process moved the head
 * (appends from this process to one session are queued, see session-queue.ts).
 */
const APPEND_ATTEMPTS = 64;

export async function appendTurns(
  ledger: LedgerContext,
  sessionId: string,
  inputs: readonly AppendTurnInput[],
): Promise<NormalTurn[]> {
  // Validate everything before anything is read: a bad item rejects the whole batch.
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
      model: validateModel(input.model),
      eventIds: validateEventIds(input.eventIds),
      tokenCount: countContentTokens(ledger.tokenCounter, content),
      toolCallCount: toolUseIds(content).length,
    };
  });
  const eventIds = [...new Set(prepared.flatMap((item) => item.eventIds))];
  // Events are append-only: one that exists now still exists when the turns are written.
  await requireEvents(ledger.store, eventIds);
  return ledger.appendQueue.run(sessionId, () => writeWithRetry(ledger, sessionId, prepared));
}

async function writeWithRetry(
  ledger: LedgerContext,
  sessionId: string,
  prepared: readonly PreparedTurn[],
): Promise<NormalTurn[]> {
  const expected = prepared[0]?.input.expectedHeadTurnId;
  for (let attempt = 1; ; attempt += 1) {
    // Plan on the head this process last wrote, or as read now; either way the store writes only
    // if it is still the head. A caller's expected head that differs from the cached one is
    // checked against what is stored, never against the cache.
    const cached = attempt === 1 ? ledger.heads.get(sessionId) : undefined;
    const known = cached && (expected === undefined || expected === (cached.head?.id ?? null)) ? cached : undefined;
    const session = known?.session ?? (await requireSessionRow(ledger.store, sessionId));
    const head = known ? known.head : session.headTurnId ? await requireTurnRow(ledger.store, session.headTurnId) : null;
    const planned = await planAppend(ledger, session, head, prepared);
    const outcome = await ledger.store.appendToSession({
      sessionId,
      expectedHeadTurnId: head?.id ?? null,
      turns: planned.map((item) => item.row),
      eventLinks: planned.flatMap((item) => item.eventIds.map((eventId) => ({ turnId: item.row.id, eventId }))),
    });
    if (outcome.written) {
      const last = planned.at(-1)?.row ?? head;
      ledger.heads.remember(sessionId, { session: { ...session, headTurnId: last?.id ?? null }, head: last });
      return planned.map(({ row, eventIds }) => turnFromRow(row, eventIds) as NormalTurn);
    }
    ledger.heads.forget(sessionId);
    // The cache was behind (a compaction, another process): plan again on what is stored.
    if (known) continue;
    // Another writer moved the head. A caller that named the head it saw gets the conflict; one
    // that did not simply goes after the new head.
    if (expected !== undefined || attempt >= APPEND_ATTEMPTS)
      throw new HeadConflictError(sessionId, expected ?? head?.id ?? null, outcome.actualHeadTurnId);
    // Writers that keep meeting each other back off a little, by a random amount, so one wins.
    if (attempt > 2) await new Promise((resolve) => setTimeout(resolve, Math.random() * attempt));
  }
}

interface PreparedTurn {
  input: AppendTurnInput;
  role: Role;
  content: ContentBlock[];
  timestamp: number | undefined;
  metadata: Record<string, unknown> | undefined;
  model: string | null;
  eventIds: string[];
  tokenCount: number;
  toolCallCount: number;
}

/** The rows of the batch as children of the session's current head, checked; no write. */
async function planAppend(
  ledger: LedgerContext,
  session: SessionRecord,
  start: TurnRecord | null,
  prepared: readonly PreparedTurn[],
): Promise<Array<{ row: TurnRecord; eventIds: string[] }>> {
  const sessionId = session.id;
  let head = start;
  const planned: Array<{ row: TurnRecord; eventIds: string[] }> = [];
  for (const { input, role, content, timestamp, metadata, model, eventIds, tokenCount, toolCallCount } of prepared) {
    if (input.expectedHeadTurnId !== undefined && input.expectedHeadTurnId !== (head?.id ?? null)) {
      // A head that is no turn at all is a typo, not a race: say so rather than "another writer".
      if (input.expectedHeadTurnId !== null) await requireTurnRow(ledger.store, input.expectedHeadTurnId);
      throw new HeadConflictError(sessionId, input.expectedHeadTurnId, head?.id ?? null);
    }
    await refuseSecondResults(ledger.store, head, planned, content);
    if (tokenCount > session.contextWindow) throw new MessageTooLargeError(tokenCount, session.contextWindow);
    const row = planTurnRecord(ledger, sessionId, head, {
      role,
      content,
      model,
      tokenCount,
      timestamp: timestamp ?? ledger.now(),
      toolCallCount,
      metadata: metadata ?? null,
      turnType: 'normal',
      eventIds,
    });
    planned.push({ row, eventIds });
    head = row;
  }
  return planned;
}

/** How far back along the chain a tool_result looks for an earlier result to the same call. */
export const RESULT_LOOKBACK_TURNS = 64;

/**
 * A tool call gets one result: the API refuses a context that answers it twice. Looks back from
 * the head only until the call itself (results follow their call closely), so the cost stays
 * constant however long the history.
 */
async function refuseSecondResults(
  store: StoreOperations,
  head: TurnRecord | null,
  batch: ReadonlyArray<{ row: TurnRecord }>,
  content: readonly ContentBlock[],
): Promise<void> {
  const ids = toolResultIds(content);
  if (ids.length === 0) return;
  const wanted = new Set<string>();
  for (const id of ids) {
    if (wanted.has(id)) throw secondResult(id, 'this same turn');
    wanted.add(id);
  }
  // The batch's own rows are not stored yet: look at them first, newest first.
  const unwritten = new Map(batch.map(({ row }) => [row.id, row]));
  let turn = head;
  for (let step = 0; turn && wanted.size > 0 && step < RESULT_LOOKBACK_TURNS; step += 1) {
    if (turn.turnType === 'normal' && Array.isArray(turn.content)) {
      const blocks = turn.content as ContentBlock[];
      for (const id of toolResultIds(blocks)) if (wanted.has(id)) throw secondResult(id, `turn ${turn.id}`);
      for (const id of toolUseIds(blocks)) wanted.delete(id);
    }
    const parentId: string | null = turn.parentTurnId;
    turn = parentId ? (unwritten.get(parentId) ?? (await requireTurnRow(store, parentId))) : null;
  }
}

function secondResult(toolUseId: string, where: string): InvalidInputError {
  return new InvalidInputError(
    `A second tool_result for tool call ${toolUseId}: ${where} already answered it, and a call gets exactly one result. ` +
      'Nothing was written; send the new information as text instead.',
    'content',
  );
}

export type TurnFields = { id?: string } & Partial<
  Omit<
    TurnRecord,
    | 'id'
    | 'sessionId'
    | 'parentTurnId'
    | 'depth'
    | 'latestCompactionId'
    | 'cumulativeTokens'
    | 'searchText'
    | 'tokenCount'
    | 'timestamp'
    | 'hash'
  >
> &
  Pick<TurnRecord, 'tokenCount' | 'timestamp'> & {
    /** Events the turn cites: written as links beside the row, and covered by its hash. */
    eventIds?: readonly string[];
  };

/**
 * The row of a turn appended as the child of `head`: every derived column (depth, latest
 * compaction, cumulative tokens, search text, its link in the hash chain) is set here and nowhere else. Pure: the caller writes
 * it with `store.appendToSession`, which checks that `head` is still the session's head.
 */
export function planTurnRecord(
  ledger: Pick<LedgerContext, 'generateId'>,
  sessionId: string,
  head: TurnRecord | null,
  fields: TurnFields,
): TurnRecord {
  const { eventIds = [], ...stored } = fields;
  const id = stored.id ?? ledger.generateId('turn');
  const isCompaction = stored.turnType === 'compaction';
  const inheritedCompaction = head ? (head.turnType === 'compaction' ? head.id : head.latestCompactionId) : null;
  const row: TurnRecord = {
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
    ...stored,
    searchText: searchTextOf(stored),
    id,
    sessionId,
    parentTurnId: head?.id ?? null,
    depth: head ? head.depth + 1 : 0,
    latestCompactionId: isCompaction ? id : inheritedCompaction,
    cumulativeTokens: (head?.cumulativeTokens ?? 0) + (isCompaction ? 0 : stored.tokenCount),
    hash: null,
  };
  row.hash = turnHash({ turn: row, parentHash: head?.hash ?? null, eventIds });
  return row;
}

/** What full-text search indexes for a turn: its message as a person reads it, or its summary. */
function searchTextOf(fields: Omit<TurnFields, 'eventIds'>): string | null {
  // NFKC here and on queries, so ＡＢＣ, ﬁle or ² are found by what a person types.
  if (fields.turnType === 'compaction') return fields.summary?.normalize('NFKC') ?? null;
  return Array.isArray(fields.content) ? contentText(fields.content as ContentBlock[]).normalize('NFKC') : null;
}
