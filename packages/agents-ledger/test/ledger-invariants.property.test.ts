// Property tests: random sequences of appends (prose and tool exchanges), compactions and forks,
// checked against a plain model of each session's line and against the ledger's invariants.

import {
  CompactionWouldNotShrinkError,
  type ContentBlock,
  EmptySessionError,
  estimateTokenCounter,
  type Message,
  NothingToCompactError,
  type Session,
  type TokenCounter,
  type Turn,
} from '@agent-ledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentsLedger, AppendTurnInput, BuiltContext } from '../src/index.ts';
import { CONTINUATION_MARKER, INTERRUPTED_TOOL_RESULT } from '../src/index.ts';
import { storeOf } from '../src/testing.ts';
import {
  apiShapeProblems,
  assistantTurn,
  contextOrNeeded,
  type Engine,
  engines,
  fullHistory,
  multiToolResultTurn,
  multiToolUseTurn,
  openEngineLedger,
  prose,
  recomputeTokens,
  userTurn,
} from './builders.ts';

// ---------------------------------------------------------------------------------------------
// Commands

type Op =
  | { kind: 'say'; session: number; role: 'user' | 'assistant'; words: number; seed: number; trailing: string }
  | { kind: 'tools'; session: number; calls: number; words: number; seed: number; batch: boolean; compactBetween: boolean }
  | { kind: 'compact'; session: number; threshold: boolean }
  | { kind: 'fork'; session: number; at: number; fromEnd: boolean; full: boolean }
  | {
      kind: 'context';
      session: number;
      at: number;
      budget: number | undefined;
      systemPrompt: boolean;
      full: boolean;
      view: boolean;
    };

const sessionPick = fc.nat({ max: 50 });
const budgetArb = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 0, max: 30 }),
  fc.integer({ min: 31, max: 3000 }),
  fc.constant(1_000_000_000),
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('say' as const),
      session: sessionPick,
      role: fc.constantFrom('user' as const, 'assistant' as const),
      words: fc.integer({ min: 1, max: 120 }),
      seed: fc.nat({ max: 1000 }),
      // Whitespace at the end of a turn costs more once merged with the next turn of the same role.
      trailing: fc.constantFrom('', '', ' ', '\n', ' \n '),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      session: sessionPick,
      calls: fc.integer({ min: 1, max: 3 }),
      words: fc.integer({ min: 1, max: 80 }),
      seed: fc.nat({ max: 1000 }),
      batch: fc.boolean(),
      compactBetween: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('compact' as const), session: sessionPick, threshold: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('fork' as const),
      session: sessionPick,
      at: fc.nat({ max: 500 }),
      // Forks of forks need forks at the turns a fork wrote itself: its newest ones.
      fromEnd: fc.boolean(),
      full: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('context' as const),
      session: sessionPick,
      at: fc.nat({ max: 500 }),
      budget: budgetArb,
      systemPrompt: fc.boolean(),
      full: fc.boolean(),
      view: fc.boolean(),
    }),
  },
);

/**
 * A counter whose cost grows faster than the text: merging two turns into one message costs more
 * than the two apart, so per-turn estimates undercount and only the exact count keeps the budget.
 */
const superadditiveCounter: TokenCounter = {
  name: 'superadditive',
  countText(text: string): number {
    const base = estimateTokenCounter.countText(text);
    return base + Math.floor((base * base) / 1000);
  },
};

const scenarioArb = fc.record({
  contextWindow: fc.integer({ min: 600, max: 3000 }),
  superadditive: fc.boolean(),
  ops: fc.array(opArb, { minLength: 1, maxLength: 45, size: 'max' }),
  finalBudgets: fc.array(budgetArb, { minLength: 1, maxLength: 3 }),
});

// ---------------------------------------------------------------------------------------------
// Model

interface NormalInfo {
  kind: 'normal';
  role: 'user' | 'assistant';
  content: ContentBlock[];
  uses: string[];
  results: string[];
}
type TurnInfo = NormalInfo | { kind: 'compaction' };

interface SessionModel {
  id: string;
  line: string[];
  parentSessionId: string | null;
  full: boolean;
  /**
   * Compactions at or above this depth are ignored by the session: a `full` fork ignores those up
   * to its fork point, and a fork inherits what the session of its fork point ignored. -1: none.
   */
  floor: number;
}

interface Snapshot {
  sessionId: string;
  taken: unknown;
}

const SYSTEM_PROMPT = 'You are the test agent. Keep answers short.';
const EXPECTED_COMPACTION_ERRORS = [NothingToCompactError, CompactionWouldNotShrinkError];

class Model {
  readonly sessions: SessionModel[] = [];
  readonly info = new Map<string, TurnInfo>();
  readonly snapshots: Snapshot[] = [];
  private toolCounter = 0;
  compactions = 0;
  contexts = 0;

  constructor(readonly ledger: AgentsLedger) {}

  pick(index: number): SessionModel {
    return this.sessions[index % this.sessions.length] as SessionModel;
  }

  byId(sessionId: string): SessionModel {
    const found = this.sessions.find((session) => session.id === sessionId);
    if (!found) throw new Error(`unknown session ${sessionId}`);
    return found;
  }

  nextToolId(): string {
    this.toolCounter += 1;
    return `toolu_${this.toolCounter}`;
  }

  /** Tool calls still waiting for a result at the end of `line[0..=index]`. */
  pendingAt(line: readonly string[], index: number): Set<string> {
    const pending = new Set<string>();
    for (let position = 0; position <= index; position += 1) {
      const info = this.info.get(line[position] as string);
      if (info?.kind !== 'normal') continue;
      for (const id of info.results) pending.delete(id);
      for (const id of info.uses) pending.add(id);
    }
    return pending;
  }

  /**
   * The turns of the smallest valid context among these candidates: the newest user turn, with the
   * turns before it in its tool exchange (a call and the results answering it stay together).
   */
  smallestContextTurns(candidates: readonly string[]): string[] {
    const units: string[][] = [];
    let open = new Set<string>();
    for (const id of candidates) {
      const info = this.info.get(id) as NormalInfo;
      if (!(open.size > 0 && info.results.some((result) => open.has(result)))) {
        units.push([]);
        open = new Set();
      }
      units.at(-1)?.push(id);
      for (const result of info.results) open.delete(result);
      for (const use of info.uses) open.add(use);
    }
    for (const unit of units.reverse()) {
      const last = unit.findLastIndex((id) => (this.info.get(id) as NormalInfo).role === 'user');
      if (last >= 0) return unit.slice(0, last + 1);
    }
    return [];
  }

  /** Index in `line` of the compaction a context at `line[index]` starts from, seen from `view`. */
  effectiveCompactionIndex(line: readonly string[], index: number, view: SessionModel, full: boolean): number {
    if (full) return -1;
    for (let position = index; position >= 0; position -= 1) {
      if (this.info.get(line[position] as string)?.kind === 'compaction') {
        return position <= view.floor ? -1 : position;
      }
    }
    return -1;
  }

  record(turn: Turn): void {
    if (turn.turnType === 'compaction') {
      this.info.set(turn.id, { kind: 'compaction' });
      return;
    }
    const uses = turn.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    const results = turn.content.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : []));
    this.info.set(turn.id, { kind: 'normal', role: turn.role, content: turn.content, uses, results });
  }

  async append(session: SessionModel, input: AppendTurnInput): Promise<void> {
    const turn = await this.ledger.appendTurn(session.id, { ...input, expectedHeadTurnId: session.line.at(-1) ?? null });
    expect(turn.parentTurnId).toBe(session.line.at(-1) ?? null);
    expect(turn.depth).toBe(session.line.length);
    this.record(turn);
    session.line.push(turn.id);
  }

  async answerPending(session: SessionModel, seed: number): Promise<void> {
    const pending = this.pendingAt(session.line, session.line.length - 1);
    if (pending.size === 0) return;
    await this.append(session, multiToolResultTurn([...pending].map((id, index) => ({ id, text: prose(6, seed + index) }))));
  }

  async snapshot(sessionId: string): Promise<unknown> {
    const session = await this.ledger.getSession(sessionId);
    if (!session.headTurnId) return { session, history: [], context: null };
    const history = (await fullHistory(this.ledger, session.headTurnId)).map(({ hasChildren: _ignored, ...rest }) => rest);
    const context = await this.ledger.buildContext(session.headTurnId, { sessionId });
    return { session, history, context };
  }

  /** Before `sessionId` changes, every snapshot of it taken at fork time must still hold. */
  async verifySnapshots(sessionId?: string): Promise<void> {
    for (let index = this.snapshots.length - 1; index >= 0; index -= 1) {
      const snapshot = this.snapshots[index] as Snapshot;
      if (sessionId !== undefined && snapshot.sessionId !== sessionId) continue;
      expect(await this.snapshot(snapshot.sessionId), `source ${snapshot.sessionId} changed by a fork`).toEqual(snapshot.taken);
      this.snapshots.splice(index, 1);
    }
  }

  async compact(session: SessionModel, threshold: boolean): Promise<void> {
    await this.verifySnapshots(session.id);
    if (session.line.length === 0) {
      await expect(this.ledger.compact(session.id)).rejects.toBeInstanceOf(EmptySessionError);
      return;
    }
    if (threshold && !(await this.ledger.shouldCompact(session.id))) return;
    const rowsBefore = await storeOf(this.ledger).countTurns();
    const usageBefore = await this.ledger.contextUsage(session.id);
    let compaction: Turn;
    try {
      compaction = await this.ledger.compact(session.id, { trigger: threshold ? 'threshold' : 'manual' });
    } catch (error) {
      if (!EXPECTED_COMPACTION_ERRORS.some((type) => error instanceof type)) throw error;
      expect(await storeOf(this.ledger).countTurns()).toBe(rowsBefore);
      expect((await this.ledger.getSession(session.id)).headTurnId).toBe(session.line.at(-1));
      return;
    }
    if (compaction.turnType !== 'compaction') throw new Error('compact returned a normal turn');
    this.compactions += 1;
    expect(compaction.parentTurnId).toBe(session.line.at(-1));
    expect(compaction.sessionId).toBe(session.id);
    expect(compaction.trigger).toBe(threshold ? 'threshold' : 'manual');
    expect(compaction.tokensBefore).toBe(usageBefore.contextTokens);
    expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);

    // The cut: summarizedThrough is the normal turn right before firstKept, inside the window.
    const viewIndex = session.line.length - 1;
    const previousIndex = this.effectiveCompactionIndex(session.line, viewIndex, session, false);
    const windowStart = previousIndex < 0 ? 0 : await this.rawStart(session.line, previousIndex);
    const windowIds = session.line.slice(windowStart).filter((id) => this.info.get(id)?.kind === 'normal');
    const throughIndex = windowIds.indexOf(compaction.summarizedThroughTurnId);
    expect(throughIndex).toBeGreaterThanOrEqual(0);
    if (compaction.firstKeptTurnId === null) expect(throughIndex).toBe(windowIds.length - 1);
    else expect(windowIds.indexOf(compaction.firstKeptTurnId)).toBe(throughIndex + 1);

    // The cut never separates a tool_use from its tool_result.
    const summarizedUses = new Set(windowIds.slice(0, throughIndex + 1).flatMap((id) => (this.info.get(id) as NormalInfo).uses));
    const keptResults = windowIds.slice(throughIndex + 1).flatMap((id) => (this.info.get(id) as NormalInfo).results);
    for (const id of keptResults) expect(summarizedUses.has(id), `tool exchange ${id} split by the cut`).toBe(false);

    this.record(compaction);
    session.line.push(compaction.id);
    expect((await this.ledger.getSession(session.id)).headTurnId).toBe(compaction.id);
    expect((await this.ledger.contextUsage(session.id)).contextTokens).toBe(compaction.tokensAfter);
  }

  async rawStart(line: readonly string[], compactionIndex: number): Promise<number> {
    const compaction = line[compactionIndex] as string;
    const firstKept = (await storeOf(this.ledger).getTurn(compaction))?.firstKeptTurnId ?? null;
    return firstKept === null ? compactionIndex + 1 : line.indexOf(firstKept);
  }

  async fork(source: SessionModel, at: number, fromEnd: boolean, full: boolean): Promise<void> {
    if (source.line.length === 0) return;
    const length = source.line.length;
    const index = fromEnd ? length - 1 - (at % Math.min(length, 4)) : at % length;
    const turnId = source.line[index] as string;
    const owner = (await this.ledger.getTurn(turnId)).sessionId;
    for (const sessionId of new Set([owner, source.id])) {
      this.snapshots.push({ sessionId, taken: await this.snapshot(sessionId) });
    }
    const ownerModel = this.byId(owner);
    const fork = await this.ledger.forkFrom(turnId, { full });
    const created: Session = fork.session;
    expect(created.headTurnId).toBe(turnId);
    expect(created.forkedFromTurnId).toBe(turnId);
    expect(created.parentSessionId).toBe(owner);
    expect(created.rebuildFromRaw).toBe(full);
    const model: SessionModel = {
      id: created.id,
      line: source.line.slice(0, index + 1),
      parentSessionId: owner,
      full,
      floor: full ? index : ownerModel.floor,
    };
    this.sessions.push(model);
    const base = this.effectiveCompactionIndex(model.line, index, model, false);
    expect(fork.baseCompactionId).toBe(base < 0 ? null : model.line[base]);
    if (full) expect(fork.baseCompactionId).toBeNull();
    // A plain fork starts from the very context its fork point had in its own session.
    if (!full) {
      expect(await this.ledger.buildContext(turnId, { sessionId: created.id })).toEqual(await this.ledger.buildContext(turnId));
    }
    // Forking itself wrote no turn and moved no head.
    await this.verifySnapshots();
  }

  async checkContext(op: Extract<Op, { kind: 'context' }>): Promise<void> {
    const session = this.pick(op.session);
    if (session.line.length === 0) return;
    const index = op.at % session.line.length;
    const turnId = session.line[index] as string;
    const owner = this.byId((await this.ledger.getTurn(turnId)).sessionId);
    const view = op.view ? session : owner;
    const context = await contextOrNeeded(this.ledger, turnId, {
      budgetTokens: op.budget,
      systemPrompt: op.systemPrompt ? SYSTEM_PROMPT : undefined,
      sessionId: op.view ? session.id : undefined,
      full: op.full,
    });
    this.contexts += 1;
    await this.checkBuiltContext(context, session.line, index, view, op);
  }

  async checkBuiltContext(
    built: BuiltContext | { needs: number },
    line: readonly string[],
    index: number,
    view: SessionModel,
    op: { budget: number | undefined; systemPrompt: boolean; full: boolean },
  ): Promise<void> {
    const compactionIndex = this.effectiveCompactionIndex(line, index, view, op.full);
    const start = compactionIndex < 0 ? 0 : await this.rawStart(line, compactionIndex);
    const candidates = line.slice(start, index + 1).filter((id) => this.info.get(id)?.kind === 'normal');
    const smallest = this.smallestContextTurns(candidates);
    // A budget too small for the newest user turn is refused, naming a budget above it.
    if ('needs' in built) {
      expect(op.budget).toBeDefined();
      expect(built.needs).toBeGreaterThan(op.budget as number);
      return;
    }
    const context = built;
    // Within budget, and `tokens` is what system + messages really cost.
    expect(context.tokens).toBe(recomputeTokens(this.ledger, context));
    if (op.budget !== undefined) expect(context.tokens).toBeLessThanOrEqual(op.budget);
    else expect(context.summaryTruncated).toBe(false);

    // API shape, tool pairs whole: strict, a call still waiting for its result is answered too;
    // never an empty list (the API refuses one).
    expect(context.messages.length).toBeGreaterThan(0);
    expect(apiShapeProblems(context.messages)).toEqual([]);

    // Included turns are the newest of the candidates, dropped ones the oldest, nothing else; or,
    // when nothing else fits, the newest user turn alone (with the call its results answer).
    expect(context.compactionTurnId).toBe(compactionIndex < 0 ? null : line[compactionIndex]);
    const newest = candidates.slice(candidates.length - context.includedTurnIds.length);
    if (newest.join() === context.includedTurnIds.join()) expect(newest).toEqual(context.includedTurnIds);
    else expect(context.includedTurnIds).toEqual(smallest);
    const dropped = new Set(context.droppedTurnIds);
    for (const id of context.includedTurnIds) expect(dropped.has(id)).toBe(false);
    const droppedOrder = candidates.filter((id) => dropped.has(id));
    expect(droppedOrder).toEqual(context.droppedTurnIds);
    expect(context.droppedTurnIds.length).toBe(dropped.size);
    if (op.budget === undefined) {
      expect(context.includedTurnIds).toEqual(candidates);
      expect(context.droppedTurnIds).toEqual([]);
      if (op.systemPrompt) expect(context.system.startsWith(SYSTEM_PROMPT)).toBe(true);
      this.checkMessageContent(context.messages, context.includedTurnIds, compactionIndex >= 0);
    }
  }

  /**
   * With no budget, the messages carry every included turn's blocks: verbatim, or a result that
   * answers no call right before it as text; the only blocks added are the marker and synthetic
   * results for calls never answered; text and calls keep their order.
   */
  checkMessageContent(messages: readonly Message[], included: readonly string[], hasSummary: boolean): void {
    // No raw turn after the compaction (it kept none): the one message continues from the summary.
    if (included.length === 0) {
      expect(hasSummary).toBe(true);
      expect(messages).toEqual([{ role: 'user', content: [{ type: 'text', text: CONTINUATION_MARKER }] }]);
      return;
    }
    const isSynthetic = (block: ContentBlock) => block.type === 'tool_result' && block.content === INTERRUPTED_TOOL_RESULT;
    const actual = messages.flatMap((message) => message.content).filter((block) => !isSynthetic(block));
    const firstInfo = included[0] ? (this.info.get(included[0]) as NormalInfo) : undefined;
    if (firstInfo?.role === 'assistant') {
      const marker = actual.shift();
      expect(marker).toEqual({ type: 'text', text: hasSummary ? CONTINUATION_MARKER : '[The conversation continues.]' });
    }
    const expected = included.flatMap((id) => (this.info.get(id) as NormalInfo).content);
    expect(actual.length).toBe(expected.length);
    const remaining = [...actual];
    for (const want of expected) {
      const position = remaining.findIndex(
        (block) =>
          JSON.stringify(block) === JSON.stringify(want) ||
          (want.type === 'tool_result' &&
            block.type === 'text' &&
            block.text.startsWith(`[result of tool call ${want.tool_use_id}]`)),
      );
      expect(position, `block ${JSON.stringify(want)} is in the messages`).toBeGreaterThanOrEqual(0);
      remaining.splice(position, 1);
    }
    const plain = (blocks: readonly ContentBlock[]) =>
      blocks.filter(
        (block) => block.type !== 'tool_result' && !(block.type === 'text' && block.text.startsWith('[result of tool call')),
      );
    expect(plain(actual)).toEqual(plain(expected));
  }
}

// ---------------------------------------------------------------------------------------------
// Running a scenario

async function run(model: Model, ops: readonly Op[]): Promise<void> {
  for (const op of ops) {
    const session = model.pick(op.session);
    switch (op.kind) {
      case 'say': {
        await model.verifySnapshots(session.id);
        await model.answerPending(session, op.seed);
        const text = prose(op.words, op.seed) + op.trailing;
        await model.append(session, op.role === 'user' ? userTurn(text) : assistantTurn(text));
        break;
      }
      case 'tools': {
        await model.verifySnapshots(session.id);
        await model.answerPending(session, op.seed);
        const calls = Array.from({ length: op.calls }, (_, index) => ({
          id: model.nextToolId(),
          name: index % 2 === 0 ? 'read_file' : 'run_tests',
          input: { path: `src/file${op.seed + index}.ts`, note: prose(Math.ceil(op.words / 4), op.seed + index) },
        }));
        const use = multiToolUseTurn(calls);
        const result = multiToolResultTurn(
          calls.map((call, index) => ({ id: call.id, text: prose(Math.ceil(op.words / op.calls), op.seed + 7 * index) })),
        );
        if (op.batch && !op.compactBetween) {
          const head = session.line.at(-1) ?? null;
          const written = await model.ledger.appendTurns(session.id, [
            { ...use, expectedHeadTurnId: head },
            { ...result, expectedHeadTurnId: undefined },
          ]);
          expect(written.map((turn) => turn.parentTurnId)).toEqual([head, written[0]?.id]);
          for (const turn of written) {
            model.record(turn);
            session.line.push(turn.id);
          }
        } else {
          await model.append(session, use);
          if (op.compactBetween) await model.compact(session, false);
          await model.append(session, result);
        }
        break;
      }
      case 'compact':
        await model.compact(session, op.threshold);
        break;
      case 'fork':
        await model.fork(session, op.at, op.fromEnd, op.full);
        break;
      case 'context':
        await model.checkContext(op);
        break;
    }
  }
}

/** The previous compaction a compaction folded in (not part of the public Turn shape). */
async function previousCompactionId(ledger: AgentsLedger, compactionId: string): Promise<string | null> {
  return (await storeOf(ledger).getTurn(compactionId))?.previousCompactionId ?? null;
}

async function checkFinalInvariants(model: Model, finalBudgets: readonly (number | undefined)[]): Promise<void> {
  const { ledger } = model;
  await model.verifySnapshots();
  for (const session of model.sessions) {
    const stored = await ledger.getSession(session.id);
    expect(stored.headTurnId).toBe(session.line.at(-1) ?? null);
    if (session.line.length === 0) continue;

    // Full history: every turn once, in order, depth contiguous, parents linked.
    const history = await fullHistory(ledger, stored.headTurnId as string);
    expect(history.map((turn) => turn.id)).toEqual(session.line);
    history.forEach((turn, depth) => {
      expect(turn.depth).toBe(depth);
      expect(turn.parentTurnId).toBe(depth === 0 ? null : history[depth - 1]?.id);
    });

    // Every compacted turn is reachable from exactly one compaction of the session's chain.
    const head = stored.headTurnId as string;
    const headContext = await ledger.buildContext(head, { sessionId: session.id });
    const chain: string[] = [];
    for (let id = headContext.compactionTurnId; id !== null; id = await previousCompactionId(ledger, id)) chain.push(id);
    const owners = new Map<string, string>();
    for (const [position, compactionId] of chain.entries()) {
      const compaction = await ledger.getTurn(compactionId);
      if (compaction.turnType !== 'compaction') throw new Error('chain holds a normal turn');
      const summarized = await ledger.getSummarizedTurns(compactionId);
      const normals = summarized.filter((turn) => turn.turnType === 'normal').map((turn) => turn.id);
      // In chain order and contiguous on the line, ending at summarizedThroughTurnId.
      const firstIndex = session.line.indexOf(normals[0] as string);
      expect(firstIndex).toBeGreaterThanOrEqual(0);
      const onLine = session.line
        .slice(firstIndex, session.line.indexOf(compaction.summarizedThroughTurnId) + 1)
        .filter((id) => model.info.get(id)?.kind === 'normal');
      expect(normals).toEqual(onLine);
      expect(normals.at(-1)).toBe(compaction.summarizedThroughTurnId);
      for (const id of normals) {
        expect(owners.has(id), `turn ${id} summarized twice`).toBe(false);
        owners.set(id, compactionId);
      }
      const older = chain[position + 1];
      if (older !== undefined) expect(summarized.map((turn) => turn.id)).toContain(older);
    }
    const newest = chain[0];
    if (newest !== undefined) {
      const newestTurn = await ledger.getTurn(newest);
      if (newestTurn.turnType !== 'compaction') throw new Error('not a compaction');
      const throughIndex = session.line.indexOf(newestTurn.summarizedThroughTurnId);
      for (const id of session.line.slice(0, throughIndex + 1)) {
        if (model.info.get(id)?.kind !== 'normal') continue;
        expect(owners.get(id), `turn ${id} reachable from no compaction`).toBeDefined();
        const found = await ledger.findCompactionThatSummarized(id, { sessionId: session.id });
        expect(found?.id, `findCompactionThatSummarized(${id})`).toBe(owners.get(id));
      }
      for (const id of session.line.slice(throughIndex + 1)) {
        if (model.info.get(id)?.kind !== 'normal') continue;
        expect(await ledger.findCompactionThatSummarized(id, { sessionId: session.id }), id).toBeNull();
      }
    } else {
      // No compaction applies: no turn of the line counts as summarized for this session.
      for (const id of session.line) {
        if (model.info.get(id)?.kind !== 'normal') continue;
        expect(await ledger.findCompactionThatSummarized(id, { sessionId: session.id }), id).toBeNull();
      }
    }
    // Every compaction the session's view honours is on the chain, and no other.
    const honoured = session.line.filter((id, depth) => model.info.get(id)?.kind === 'compaction' && depth > session.floor);
    expect([...chain].reverse()).toEqual(honoured);

    // Context at the head, at several budgets.
    for (const budget of finalBudgets) {
      const context = await contextOrNeeded(ledger, head, { sessionId: session.id, budgetTokens: budget });
      await model.checkBuiltContext(context, session.line, session.line.length - 1, session, {
        budget,
        systemPrompt: false,
        full: false,
      });
    }
  }
}

// Each scenario gets a fresh database: a new SQLite file, or a new PostgreSQL database (slower to
// make and to write to, so fewer runs there by default).
const RUNS: Record<Engine, number> = {
  sqlite: Number(process.env.LEDGER_PROPERTY_RUNS ?? 60),
  postgres: Number(process.env.LEDGER_PROPERTY_RUNS_POSTGRES ?? 25),
};

for (const { engine, title, skip } of engines()) {
  const NUM_RUNS = RUNS[engine];
  describe.skipIf(skip)(`ledger invariants over random command sequences ${title}`, () => {
    it('hold after appends, tool exchanges, compactions, forks and context builds', {
      timeout: Math.max(60_000, NUM_RUNS * (engine === 'postgres' ? 5000 : 1000)),
    }, async () => {
      let compactions = 0;
      let contexts = 0;
      let forks = 0;
      await fc.assert(
        fc.asyncProperty(scenarioArb, async ({ contextWindow, superadditive, ops, finalBudgets }) => {
          const temp = await openEngineLedger(engine, superadditive ? { tokenCounter: superadditiveCounter } : {}, 'invariants');
          try {
            const reserveTokens = Math.floor(contextWindow / 10);
            const keepRecentTokens = Math.floor(contextWindow / 4);
            const root = await temp.ledger.createSession({ settings: { contextWindow, reserveTokens, keepRecentTokens } });
            const model = new Model(temp.ledger);
            model.sessions.push({ id: root.id, line: [], parentSessionId: null, full: false, floor: -1 });
            await run(model, ops);
            await checkFinalInvariants(model, finalBudgets);
            compactions += model.compactions;
            contexts += model.contexts;
            forks += model.sessions.length - 1;
          } finally {
            await temp.cleanup();
          }
        }),
        { numRuns: NUM_RUNS },
      );
      // The generator must actually exercise what the invariants are about (thresholds for 60 runs, scaled).
      const scale = NUM_RUNS / 60;
      expect(compactions).toBeGreaterThan(20 * scale);
      expect(forks).toBeGreaterThan(10 * scale);
      expect(contexts).toBeGreaterThan(50 * scale);
    });
  });
}
