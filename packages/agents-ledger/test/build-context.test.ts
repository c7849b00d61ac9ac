import {
  type CompactionTurn,
  type ContentBlock,
  countContentTokens,
  estimateTokenCounter,
  type NormalTurn,
} from '@agent-ledger/core';
import { openRawSqlite, withTurnTriggersLifted } from '@agent-ledger/store-sqlite/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentsLedger, assembleContext, CONTINUATION_MARKER, renderSummaryBlock } from '../src/index.ts';
import {
  apiShapeProblems,
  appendConversation,
  assistantTurn,
  contextOrNeeded,
  neededTokens,
  newSession,
  openTempLedger,
  prose,
  recomputeTokens,
  type TempLedger,
  toolResultTurn,
  toolUseTurn,
  userTurn,
} from './builders.ts';

const TRUNCATION_MARKER = '[…earlier summary lines omitted to fit the budget]';
const SYSTEM_PROMPT = 'You are a careful coding agent.';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

async function compactedSession(turns = 30) {
  temp = openTempLedger();
  const { ledger } = temp;
  const session = await newSession(ledger);
  const ids = await appendConversation(ledger, session.id, turns, 40);
  const compaction = await ledger.compact(session.id);
  return { ledger, session, ids, compaction };
}

describe('buildContext without compaction', () => {
  it('returns every turn as alternating user/assistant messages, merging consecutive turns of one role', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const turns = await ledger.appendTurns(session.id, [
      userTurn('First question about the schema.'),
      userTurn('And a follow-up.'),
      assistantTurn('Here is the answer.'),
      assistantTurn('And one more thing.'),
      userTurn('Thanks.'),
    ]);
    const head = turns.at(-1)?.id as string;
    const context = await ledger.buildContext(head);
    expect(context.compactionTurnId).toBeNull();
    expect(context.system).toBe('');
    expect(context.summaryTruncated).toBe(false);
    expect(context.includedTurnIds).toEqual(turns.map((turn) => turn.id));
    expect(context.droppedTurnIds).toEqual([]);
    expect(context.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'First question about the schema.' },
          { type: 'text', text: 'And a follow-up.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Here is the answer.' },
          { type: 'text', text: 'And one more thing.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
    ]);
    expect(context.tokens).toBe(recomputeTokens(ledger, context));
  });

  it('opens with a user message when the first turn is the assistant speaking', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const turn = await ledger.appendTurn(session.id, assistantTurn('Hello, how can I help?'));
    const context = await ledger.buildContext(turn.id);
    expect(context.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: '[The conversation continues.]' }] });
    expect(context.messages[1]?.role).toBe('assistant');
    expect(apiShapeProblems(context.messages)).toEqual([]);
  });

  it('puts the systemPrompt in system', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const turn = await ledger.appendTurn(session.id, userTurn('hi'));
    const context = await ledger.buildContext(turn.id, { systemPrompt: SYSTEM_PROMPT });
    expect(context.system).toBe(SYSTEM_PROMPT);
    expect(context.tokens).toBe(recomputeTokens(ledger, context));
  });

  it('builds the context a turn had, ignoring turns appended after it', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const ids = await appendConversation(ledger, session.id, 6);
    const context = await ledger.buildContext(ids[2] as string);
    expect(context.includedTurnIds).toEqual(ids.slice(0, 3));
  });
});

describe('buildContext after a compaction', () => {
  it('puts the summary in system after the systemPrompt, then the kept turns raw', async () => {
    const { ledger, ids, compaction } = await compactedSession();
    const context = await ledger.buildContext(compaction.id, { systemPrompt: SYSTEM_PROMPT });
    expect(context.compactionTurnId).toBe(compaction.id);
    expect(context.system).toBe(`${SYSTEM_PROMPT}\n\n${renderSummaryBlock(compaction)}`);
    expect(context.system.startsWith(SYSTEM_PROMPT)).toBe(true);
    expect(context.system).toContain(compaction.summary);
    const keptFrom = ids.indexOf(compaction.firstKeptTurnId as string);
    expect(keptFrom).toBeGreaterThan(0);
    expect(context.includedTurnIds).toEqual(ids.slice(keptFrom));
    expect(context.tokens).toBe(recomputeTokens(ledger, context));
  });

  it('uses the compaction only for turns after it: an older turn gets its own, uncompacted context', async () => {
    const { ledger, ids } = await compactedSession();
    const context = await ledger.buildContext(ids[10] as string);
    expect(context.compactionTurnId).toBeNull();
    expect(context.includedTurnIds).toEqual(ids.slice(0, 11));
  });

  it('with full: true ignores every compaction and rebuilds from raw turns', async () => {
    const { ledger, ids, compaction } = await compactedSession();
    const next = await ledger.appendTurn(compaction.sessionId, userTurn('after the compaction'));
    const context = await ledger.buildContext(next.id, { full: true });
    expect(context.compactionTurnId).toBeNull();
    expect(context.system).not.toContain(compaction.summary);
    expect(context.includedTurnIds).toEqual([...ids, next.id]);
  });

  it('with full: true and a budget keeps the newest raw turns, reaching before the compaction', async () => {
    const { ledger, ids, compaction } = await compactedSession();
    const budget = 1500;
    const context = await ledger.buildContext(compaction.id, { full: true, budgetTokens: budget });
    expect(context.tokens).toBeLessThanOrEqual(budget);
    expect(context.compactionTurnId).toBeNull();
    expect(ids.slice(ids.length - context.includedTurnIds.length)).toEqual(context.includedTurnIds);
    // More turns than the compaction kept: the budget, not the compaction, decides.
    const keptByCompaction = ids.length - ids.indexOf(compaction.firstKeptTurnId as string);
    expect(context.includedTurnIds.length).toBeGreaterThan(keptByCompaction);
  });

  it('sends CONTINUATION_MARKER first when the kept turns start with the assistant', async () => {
    const { ledger, compaction } = await compactedSession();
    const whole = await ledger.buildContext(compaction.id);
    const first = await ledger.getTurn(whole.includedTurnIds[0] as string);
    expect(first.turnType === 'normal' && first.role).toBe('user');
    // A budget that drops exactly the first (user) kept turn.
    const budget = whole.tokens - 1;
    const context = await ledger.buildContext(compaction.id, { budgetTokens: budget });
    expect(context.includedTurnIds).toEqual(whole.includedTurnIds.slice(1));
    expect(context.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: CONTINUATION_MARKER }] });
    expect(context.tokens).toBeLessThanOrEqual(budget);
    expect(apiShapeProblems(context.messages)).toEqual([]);
  });
});

describe('buildContext within a budget', () => {
  it('drops the oldest turns first and never exceeds the budget', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 1000 });
    const ids = await appendConversation(ledger, session.id, 40, 30);
    const head = ids.at(-1) as string;
    let previousIncluded = 0;
    for (const budget of [0, 1, 5, 40, 100, 250, 600, 1500, 100_000]) {
      const context = await contextOrNeeded(ledger, head, { budgetTokens: budget });
      // Below the newest turn's own tokens no context is valid: refused, with the budget that would do.
      if ('needs' in context) {
        expect(context.needs).toBeGreaterThan(budget);
        expect(previousIncluded).toBe(0);
        continue;
      }
      expect(context.tokens).toBeLessThanOrEqual(budget);
      expect(context.tokens).toBe(recomputeTokens(ledger, context));
      expect(ids.slice(ids.length - context.includedTurnIds.length)).toEqual(context.includedTurnIds);
      for (const id of context.droppedTurnIds) expect(ids.indexOf(id)).toBeLessThan(ids.length - context.includedTurnIds.length);
      expect(context.includedTurnIds.length).toBeGreaterThanOrEqual(previousIncluded);
      previousIncluded = context.includedTurnIds.length;
      expect(apiShapeProblems(context.messages)).toEqual([]);
    }
    expect(previousIncluded).toBe(ids.length);
  });

  it('drops a tool_use and its tool_result together, never one without the other', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 1000 });
    const turns = await ledger.appendTurns(session.id, [
      userTurn('Please read the config file.'),
      toolUseTurn('toolu_big', 'read_file', { path: 'config.ts', why: prose(150, 3) }),
      toolResultTurn('toolu_big', 'ok'),
      assistantTurn('The config is fine.'),
    ]);
    const head = turns.at(-1)?.id as string;
    const resultTokens = turns[2]?.tokenCount as number;
    const answerTokens = turns[3]?.tokenCount as number;
    // Room for the result and the answer, not for the big tool_use.
    const budget = resultTokens + answerTokens + 30;
    const context = await ledger.buildContext(head, { budgetTokens: budget });
    expect(context.includedTurnIds).toEqual([turns[3]?.id]);
    expect(context.droppedTurnIds).toEqual(turns.slice(0, 3).map((turn) => turn.id));
    expect(apiShapeProblems(context.messages)).toEqual([]);
    expect(context.tokens).toBeLessThanOrEqual(budget);
    // With room for everything the exchange is whole.
    const whole = await ledger.buildContext(head);
    expect(whole.messages[1]?.content.some((block) => block.type === 'tool_use')).toBe(true);
    expect(whole.messages[2]?.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_big', content: 'ok' });
    expect(apiShapeProblems(whole.messages)).toEqual([]);
  });

  it('truncates the summary, oldest lines first, and says so with summaryTruncated', async () => {
    const { ledger, compaction } = await compactedSession();
    const whole = await ledger.buildContext(compaction.id, { budgetTokens: 1_000_000 });
    expect(whole.summaryTruncated).toBe(false);
    const lines = compaction.summary.split('\n');
    expect(lines.length).toBeGreaterThan(2);
    const systemTokens = ledger.tokenCounter.countText(whole.system);
    const budget = Math.floor(systemTokens / 2);
    const context = await ledger.buildContext(compaction.id, { budgetTokens: budget });
    expect(context.summaryTruncated).toBe(true);
    expect(context.tokens).toBeLessThanOrEqual(budget);
    expect(context.tokens).toBe(recomputeTokens(ledger, context));
    expect(context.system).toContain(TRUNCATION_MARKER);
    expect(context.system).toContain(lines.at(-1) as string);
    expect(context.system).not.toContain(lines[0] as string);
    // No kept turn fits beside the summary's tail, but a context never goes without a user message.
    const newestUser = await newestUserTurnOf(ledger, whole.includedTurnIds);
    expect(context.includedTurnIds).toEqual([newestUser.id]);
    expect(context.messages).toEqual([{ role: 'user', content: newestUser.content }]);
    expect(context.droppedTurnIds.length).toBeGreaterThan(0);
  });

  it('cuts the system text itself to fit the newest user turn in a tiny budget', async () => {
    const { ledger, compaction } = await compactedSession();
    const needs = await smallestBudget(ledger, compaction.id);
    for (const budget of [needs, needs + 1, needs + 5, needs + 12]) {
      const context = await ledger.buildContext(compaction.id, { budgetTokens: budget, systemPrompt: SYSTEM_PROMPT });
      expect(context.tokens).toBeLessThanOrEqual(budget);
      expect(context.tokens).toBe(recomputeTokens(ledger, context));
      expect(context.summaryTruncated).toBe(true);
      expect(context.messages).toHaveLength(1);
      expect(context.messages[0]?.role).toBe('user');
    }
  });

  it('refuses a budget below the newest user turn alone, naming the budgetTokens it needs', async () => {
    const { ledger, compaction } = await compactedSession();
    const whole = await ledger.buildContext(compaction.id);
    const newestUser = await newestUserTurnOf(ledger, whole.includedTurnIds);
    for (const budget of [0, 1, 5, newestUser.tokenCount - 1]) {
      const error = await rejection(ledger.buildContext(compaction.id, { budgetTokens: budget, systemPrompt: SYSTEM_PROMPT }));
      expect(neededTokens(error)).toBe(newestUser.tokenCount);
      expect((error as Error).message).toContain(`budgetTokens ${budget} is too small`);
      expect((error as Error).message).toContain(`the newest user turn ${newestUser.id} alone`);
    }
    const fits = await ledger.buildContext(compaction.id, { budgetTokens: newestUser.tokenCount, systemPrompt: SYSTEM_PROMPT });
    expect(fits).toMatchObject({ system: '', tokens: newestUser.tokenCount, includedTurnIds: [newestUser.id] });
  });

  it('keeps the answered tool call with the newest user turn when that turn carries its result', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 1000 });
    const turns = await ledger.appendTurns(session.id, [
      userTurn('Please read the config file.'),
      toolUseTurn('toolu_cfg', 'read_file', { path: 'config.ts' }),
      toolResultTurn('toolu_cfg', 'export const retries = 3;'),
      assistantTurn(prose(150, 4)),
    ]);
    const [, call, result, answer] = turns.map((turn) => turn.id);
    const needs = await smallestBudget(ledger, answer as string);
    // The answer alone is larger than the call and its result: nothing fits but the smallest context.
    const context = await ledger.buildContext(answer as string, { budgetTokens: needs });
    expect(context.includedTurnIds).toEqual([call, result]);
    // The answer after them is left out (the first question was never read: the budget was full before it).
    expect(context.droppedTurnIds).toEqual([answer]);
    expect(context.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(context.messages[0]?.content).toEqual([{ type: 'text', text: '[The conversation continues.]' }]);
    expect(apiShapeProblems(context.messages)).toEqual([]);
    const error = await rejection(ledger.buildContext(answer as string, { budgetTokens: needs - 1 }));
    expect((error as Error).message).toContain(`the newest user turn ${result} with the tool calls it answers (${call})`);
  });

  // The summary gives way first: the base prompt is cut only when it alone is over the budget.
  it('keeps the systemPrompt whenever it fits the budget on its own (summary is cut first)', async () => {
    const { ledger, compaction } = await compactedSession();
    const promptTokens = ledger.tokenCounter.countText(SYSTEM_PROMPT);
    const budget = (await smallestBudget(ledger, compaction.id)) + promptTokens + 2;
    const context = await ledger.buildContext(compaction.id, { budgetTokens: budget, systemPrompt: SYSTEM_PROMPT });
    expect(context.tokens).toBeLessThanOrEqual(budget);
    expect(context.system.startsWith(SYSTEM_PROMPT)).toBe(true);
  });

  it('does not report summaryTruncated when there is no summary to truncate', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const turn = await ledger.appendTurn(session.id, userTurn('hello'));
    const budget = turn.tokenCount + 3;
    const context = await ledger.buildContext(turn.id, { budgetTokens: budget, systemPrompt: SYSTEM_PROMPT });
    expect(context.compactionTurnId).toBeNull();
    expect(context.tokens).toBeLessThanOrEqual(budget);
    expect(context.summaryTruncated).toBe(false);
  });
});

describe('buildContext orphan tool results', () => {
  it('keeps a tool call that is still waiting for its result raw when compacting', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 2000, reserveTokens: 200, keepRecentTokens: 100 });
    const turns = await ledger.appendTurns(session.id, [
      userTurn(prose(60, 1)),
      assistantTurn(prose(60, 2)),
      userTurn('Run the tests please.'),
      toolUseTurn('toolu_open', 'run_tests', { filter: prose(120, 4) }),
    ]);
    // The open call is larger than keepRecentTokens, yet it is kept: its result has not arrived.
    const compaction = await ledger.compact(session.id);
    expect(compaction.firstKeptTurnId).toBe(turns[3]?.id);
    const result = await ledger.appendTurn(session.id, toolResultTurn('toolu_open', '12 passed'));
    const context = await ledger.buildContext(result.id);
    expect(context.includedTurnIds).toEqual([turns[3]?.id, result.id]);
    expect(apiShapeProblems(context.messages)).toEqual([]);
    expect(context.messages.at(-1)?.content[0]?.type).toBe('tool_result');
  });

  it('turns a tool_result whose tool_use is not in the context into plain text', () => {
    const stored = [normalTurn('t_result', 'user', [{ type: 'tool_result', tool_use_id: 'toolu_gone', content: '12 passed' }])];
    const assembled = assembleContext({ summaryBlock: 'Summary.', turns: stored, tokenCounter: estimateTokenCounter });
    expect(assembled.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '[result of tool call toolu_gone] 12 passed' }] },
    ]);
    expect(apiShapeProblems(assembled.messages)).toEqual([]);
    // The input turn is not changed: only the message sent is.
    expect(stored[0]?.content[0]?.type).toBe('tool_result');
  });

  it('keeps a tool_result whose tool_use is in the context as a real tool_result', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const turns = await ledger.appendTurns(session.id, [
      userTurn('Read a.ts and b.ts.'),
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'b.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'export const a = 1;' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: [{ type: 'text', text: 'export const b = 2;' }] },
        ],
      },
    ]);
    const context = await ledger.buildContext(turns.at(-1)?.id as string);
    expect(context.messages[2]?.content.map((block) => block.type)).toEqual(['tool_result', 'tool_result']);
    expect(apiShapeProblems(context.messages)).toEqual([]);
  });
});

describe('buildContext cost is independent of history length', () => {
  // One 2,000-turn history for both tests; the second one damages the old rows, so it runs last.
  let big: TempLedger;
  let ids: string[];
  let tail: string[];
  let compaction: CompactionTurn;
  let sessionId: string;
  beforeAll(async () => {
    big = openTempLedger();
    const session = await newSession(big.ledger, { contextWindow: 20_000, reserveTokens: 2000, keepRecentTokens: 1000 });
    sessionId = session.id;
    ids = await appendConversation(big.ledger, session.id, 2000, 20);
    compaction = await big.ledger.compact(session.id);
    tail = await appendConversation(big.ledger, session.id, 6, 20, 5000);
  });
  afterAll(() => big.cleanup());

  it('after a compaction of 2,000 turns, only turns from firstKeptTurnId onward are candidates', async () => {
    const { ledger } = big;
    const firstKept = ids.indexOf(compaction.firstKeptTurnId as string);
    expect(firstKept).toBeGreaterThan(1900);
    const allowed = new Set([...ids.slice(firstKept), ...tail]);
    for (const budget of [undefined, 50, 500, 5000, 1_000_000]) {
      const context = await ledger.buildContext(tail.at(-1) as string, { budgetTokens: budget });
      const touched = [...context.includedTurnIds, ...context.droppedTurnIds];
      expect(touched.length).toBeGreaterThan(0);
      for (const id of touched) expect(allowed.has(id), `${id} is older than the compaction's kept turns`).toBe(true);
      if (budget !== undefined) expect(context.tokens).toBeLessThanOrEqual(budget);
      else expect(context.includedTurnIds).toEqual([...allowed]);
    }
  });

  it('never reads a turn older than the first kept one (older rows are made unreadable)', async () => {
    const { ledger } = big;
    const firstKept = await ledger.getTurn(compaction.firstKeptTurnId as string);
    // Any read of these rows now fails while parsing their JSON content.
    const raw = openRawSqlite(big.file);
    const corrupted = withTurnTriggersLifted(raw, () =>
      raw.prepare("UPDATE agent_turns SET content = '{not json' WHERE turn_type = 'normal' AND depth < ?").run(firstKept.depth),
    );
    raw.close();
    expect(corrupted.changes).toBe(firstKept.depth);
    await expect(ledger.getTurn(compaction.summarizedThroughTurnId)).rejects.toThrow();

    const head = tail.at(-1) as string;
    const context = await ledger.buildContext(head);
    expect(context.compactionTurnId).toBe(compaction.id);
    expect(context.includedTurnIds[0]).toBe(firstKept.id);
    const budgeted = await ledger.buildContext(head, { budgetTokens: 300 });
    expect(budgeted.tokens).toBeLessThanOrEqual(300);
    const usage = await ledger.contextUsage(sessionId);
    expect(usage.contextTokens).toBeGreaterThan(0);
    expect(await ledger.findLatestCompaction(head)).toMatchObject({ id: compaction.id });
  });
});

describe('buildContext token accounting', () => {
  it('counts a message as its text plus the per-message overhead', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const turn = await ledger.appendTurn(session.id, userTurn('Count these words please.'));
    const context = await ledger.buildContext(turn.id);
    expect(context.tokens).toBe(countContentTokens(ledger.tokenCounter, [{ type: 'text', text: 'Count these words please.' }]));
    expect(turn.tokenCount).toBe(context.tokens);
  });
});

/** The budget buildContext says the smallest valid context at a turn needs (it refuses budget 0). */
async function smallestBudget(ledger: AgentsLedger, turnId: string): Promise<number> {
  return neededTokens(await rejection(ledger.buildContext(turnId, { budgetTokens: 0 })));
}

async function newestUserTurnOf(ledger: AgentsLedger, turnIds: readonly string[]): Promise<NormalTurn> {
  const turns = await Promise.all(turnIds.map((id) => ledger.getTurn(id)));
  return turns.findLast((turn): turn is NormalTurn => turn.turnType === 'normal' && turn.role === 'user') as NormalTurn;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function normalTurn(id: string, role: 'user' | 'assistant', content: ContentBlock[]): NormalTurn {
  return {
    id,
    sessionId: 's_test',
    parentTurnId: null,
    depth: 0,
    timestamp: 0,
    tokenCount: countContentTokens(estimateTokenCounter, content),
    hasChildren: false,
    metadata: null,
    turnType: 'normal',
    role,
    content,
    model: null,
    toolCallCount: 0,
    eventIds: [],
  };
}
