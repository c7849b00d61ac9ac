import {
  type CompactionTurn,
  CompactionWouldNotShrinkError,
  countContentTokens,
  type NormalTurn,
  NothingToCompactError,
  SummarizerError,
  toContentBlocks,
} from '@agent-ledger/core';
import { createExtractiveSummarizer, type SummarizeInput, type Summarizer } from '@agent-ledger/summarizers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AppendTurnInput,
  CONTINUATION_MARKER,
  type CompactionStrategy,
  defaultSummaryTokens,
  renderSummaryBlock,
  STRATEGY_CONTRACT_VERSION,
} from '../src/index.ts';
import {
  apiShapeProblems,
  appendConversation,
  assistantTurn,
  countRows,
  hugeSummarizer,
  newSession,
  normalIds,
  openTempLedger,
  prose,
  recordingSummarizer,
  SMALL_SETTINGS,
  sessionHistory,
  type TempLedger,
  throwingSummarizer,
  toolResultTurn,
  toolUseTurn,
  userTurn,
} from './builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

/** The extractive summarizer, with every input it was given recorded. */
function spyingExtractive(): Summarizer & { inputs: SummarizeInput[] } {
  const inner = createExtractiveSummarizer();
  const inputs: SummarizeInput[] = [];
  return {
    name: inner.name,
    inputs,
    summarize(input) {
      inputs.push(input);
      return inner.summarize(input);
    },
  };
}

/** Where a plain token cut would start keeping: the oldest turn of the newest run that fits. */
function naiveKeepStart(turns: readonly NormalTurn[], keepRecentTokens: number): number {
  let kept = 0;
  let start = turns.length;
  while (start > 0 && kept + (turns[start - 1] as NormalTurn).tokenCount <= keepRecentTokens) {
    kept += (turns[start - 1] as NormalTurn).tokenCount;
    start -= 1;
  }
  return start;
}

const CITATION = /^\[([A-Za-z0-9_-]+)\]/gm;
function citedIds(summary: string): string[] {
  return [...summary.matchAll(CITATION)].map((match) => match[1] as string);
}

describe('compact', () => {
  it('writes a compaction turn at the head with consistent pointers and token counts', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const ids = await appendConversation(ledger, session.id, 30, 40);
    const before = await ledger.contextUsage(session.id);
    expect(before.shouldCompact).toBe(true);

    const compaction = await ledger.compact(session.id);
    expect(compaction.turnType).toBe('compaction');
    expect(compaction.parentTurnId).toBe(ids.at(-1));
    expect(compaction.depth).toBe(30);
    expect(compaction.sessionId).toBe(session.id);
    expect(compaction.trigger).toBe('manual');
    expect(compaction.strategy).toBe('flat');
    expect(compaction.summarizer).toBe('extractive');
    expect((await ledger.getSession(session.id)).headTurnId).toBe(compaction.id);

    // summarizedThroughTurnId is the normal turn right before firstKeptTurnId.
    const keptIndex = ids.indexOf(compaction.firstKeptTurnId as string);
    expect(keptIndex).toBeGreaterThan(0);
    expect(ids[keptIndex - 1]).toBe(compaction.summarizedThroughTurnId);

    // Kept turns fit keepRecentTokens.
    let keptTokens = 0;
    for (const id of ids.slice(keptIndex)) keptTokens += (await ledger.getTurn(id)).tokenCount;
    expect(keptTokens).toBeLessThanOrEqual(SMALL_SETTINGS.keepRecentTokens);

    // Token accounting.
    expect(compaction.tokensBefore).toBe(before.contextTokens);
    expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
    expect(compaction.tokenCount).toBe(ledger.tokenCounter.countText(renderSummaryBlock(compaction)));
    expect(compaction.tokensAfter).toBe(compaction.tokenCount + keptTokens);
    const after = await ledger.contextUsage(session.id);
    expect(after.contextTokens).toBe(compaction.tokensAfter);
    expect(after.shouldCompact).toBe(false);

    // The summary fits its size limit and cites only turns it summarized.
    expect(compaction.usage.outputTokens).toBeLessThanOrEqual(defaultSummaryTokens(SMALL_SETTINGS));
    const summarized = new Set(ids.slice(0, keptIndex));
    const cited = citedIds(compaction.summary);
    expect(cited.length).toBeGreaterThan(0);
    for (const id of cited) expect(summarized.has(id)).toBe(true);
  });

  it('keeps the kept turns raw in the next context, followed by new turns', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const ids = await appendConversation(ledger, session.id, 30, 40);
    const compaction = await ledger.compact(session.id);
    const next = await ledger.appendTurn(session.id, userTurn('What did we decide about the schema?'));
    expect(next.parentTurnId).toBe(compaction.id);

    const context = await ledger.buildContext(next.id);
    const kept = ids.slice(ids.indexOf(compaction.firstKeptTurnId as string));
    expect(context.compactionTurnId).toBe(compaction.id);
    expect(context.includedTurnIds).toEqual([...kept, next.id]);
    const texts = context.messages.flatMap((message) =>
      message.content.map((block) => (block.type === 'text' ? block.text : '')),
    );
    for (const id of kept) {
      const turn = await ledger.getTurn(id);
      if (turn.turnType !== 'normal' || turn.content[0]?.type !== 'text') throw new Error('expected a text turn');
      expect(texts).toContain(turn.content[0].text);
    }
    expect(texts.at(-1)).toBe('What did we decide about the schema?');
    expect(apiShapeProblems(context.messages)).toEqual([]);
  });

  it('folds the previous summary into the next one', async () => {
    const summarizer = spyingExtractive();
    temp = openTempLedger({ summarizer });
    const { ledger } = temp;
    const session = await newSession(ledger);
    const first = await appendConversation(ledger, session.id, 30, 40);
    const c1 = await ledger.compact(session.id);
    await appendConversation(ledger, session.id, 20, 40, 100);
    const c2 = await ledger.compact(session.id);

    expect(summarizer.inputs).toHaveLength(2);
    expect(summarizer.inputs[0]?.previousSummary).toBeUndefined();
    expect(summarizer.inputs[1]?.previousSummary).toBe(c1.summary);
    // The second summary still carries lines cited from turns only the first one summarized.
    const onlyInFirst = new Set(first.slice(0, first.indexOf(c1.firstKeptTurnId as string)));
    expect(citedIds(c2.summary).some((id) => onlyInFirst.has(id))).toBe(true);
    const c1Lines = new Set(c1.summary.split('\n'));
    expect(c2.summary.split('\n').some((line) => c1Lines.has(line))).toBe(true);

    // The second compaction starts where the first one's kept turns start.
    const summarizedTurns = summarizer.inputs[1]?.turns.map((turn) => turn.id) ?? [];
    expect(summarizedTurns[0]).toBe(c1.firstKeptTurnId);
    expect(await ledger.getSummarizedTurns(c2.id)).toContainEqual(expect.objectContaining({ id: c1.id }));
    const context = await ledger.buildContext(c2.id);
    expect(context.compactionTurnId).toBe(c2.id);
    expect(context.system).not.toContain(renderSummaryBlock(c1));
  });

  it('never cuts inside a tool exchange, even where a plain token cut would', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const keepRecentTokens = 300;
    const session = await newSession(ledger, { contextWindow: 5000, reserveTokens: 500, keepRecentTokens });
    const turns = await ledger.appendTurns(session.id, [
      userTurn(prose(100, 1)),
      assistantTurn(prose(100, 2)),
      userTurn('Look at the failing test.'),
      toolUseTurn('toolu_1', 'read_file', { path: 'test.ts', note: prose(120, 3) }),
      toolResultTurn('toolu_1', prose(60, 4)),
      assistantTurn(prose(60, 5)),
    ]);
    const [, , , use, result, answer] = turns;
    if (!use || !result || !answer) throw new Error('setup');
    // A naive cut keeps the newest turns that fit: the tool_result but not its tool_use.
    expect(naiveKeepStart(turns, keepRecentTokens)).toBe(4);

    const compaction = await ledger.compact(session.id);
    expect(compaction.firstKeptTurnId).not.toBe(result.id);
    expect(compaction.summarizedThroughTurnId).not.toBe(use.id);
    const ids = turns.map((turn) => turn.id);
    const cut = compaction.firstKeptTurnId === null ? ids.length : ids.indexOf(compaction.firstKeptTurnId);
    expect(ids.indexOf(use.id) < cut).toBe(ids.indexOf(result.id) < cut);
    const context = await ledger.buildContext(compaction.id);
    expect(apiShapeProblems(context.messages)).toEqual([]);
  });

  it('keeps a multi-tool exchange whole across the cut', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const inputs: AppendTurnInput[] = [
      userTurn(prose(120, 1)),
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a.ts', note: prose(80, 2) } },
          { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'b.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: prose(40, 3) },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: prose(40, 4) },
        ],
      },
      assistantTurn(prose(30, 5)),
      userTurn(prose(30, 6)),
    ];
    // keepRecentTokens holds the results and what follows, not the calls.
    const sizes = inputs.map((input) => countContentTokens(ledger.tokenCounter, toContentBlocks(input.content)));
    const keepRecentTokens = (sizes[2] as number) + (sizes[3] as number) + (sizes[4] as number) + 2;
    const session = await newSession(ledger, { contextWindow: 5000, reserveTokens: 500, keepRecentTokens });
    const turns = await ledger.appendTurns(session.id, inputs);
    expect(naiveKeepStart(turns, keepRecentTokens)).toBe(2);
    const compaction = await ledger.compact(session.id);
    const ids = turns.map((turn) => turn.id);
    const cut = compaction.firstKeptTurnId === null ? ids.length : ids.indexOf(compaction.firstKeptTurnId);
    expect(cut).toBeGreaterThan(2);
    expect(apiShapeProblems((await ledger.buildContext(compaction.id)).messages)).toEqual([]);
  });

  it('moves the cut so the kept turns open with a person speaking', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 5000, reserveTokens: 500, keepRecentTokens: 200 });
    const turns = await ledger.appendTurns(session.id, [
      userTurn(prose(150, 1)),
      assistantTurn(prose(150, 2)),
      userTurn(prose(150, 3)),
      assistantTurn(prose(20, 4)),
      userTurn(prose(20, 5)),
      assistantTurn(prose(20, 6)),
    ]);
    // A plain token cut would open the kept turns with the assistant.
    expect(naiveKeepStart(turns, 200)).toBe(3);
    const compaction = await ledger.compact(session.id);
    expect(compaction.firstKeptTurnId).toBe(turns[4]?.id);
    expect(compaction.summarizedThroughTurnId).toBe(turns[3]?.id);
  });

  it('passes summaryTokens and instructions to the summarizer', async () => {
    const summarizer = recordingSummarizer();
    temp = openTempLedger({ summarizer });
    const { ledger } = temp;
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 20, 40);
    const compaction = await ledger.compact(session.id, { summaryTokens: 77, instructions: 'Keep the schema decisions.' });
    expect(summarizer.inputs[0]?.targetTokens).toBe(77);
    expect(summarizer.inputs[0]?.instructions).toBe('Keep the schema decisions.');
    expect(compaction.summary).toBe('Short summary.');
    expect(compaction.summarizer).toBe('recording');
    expect(compaction.usage).toEqual({ inputTokens: 10, outputTokens: 2 });
    await appendConversation(ledger, session.id, 20, 40, 50);
    await ledger.compact(session.id, { trigger: 'threshold' });
    expect(summarizer.inputs[1]?.targetTokens).toBe(defaultSummaryTokens(SMALL_SETTINGS));
    expect(summarizer.inputs[1]?.previousSummary).toBe('Short summary.');
  });

  it('with nothing kept, the next context is the summary and a user message continuing from it; firstKeptTurnId is null', async () => {
    temp = openTempLedger({ summarizer: recordingSummarizer() });
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 5000, reserveTokens: 500, keepRecentTokens: 10 });
    const ids = await appendConversation(ledger, session.id, 6, 40);
    const compaction = await ledger.compact(session.id);
    expect(compaction.firstKeptTurnId).toBeNull();
    expect(compaction.summarizedThroughTurnId).toBe(ids.at(-1));
    expect(compaction.tokensAfter).toBe(compaction.tokenCount);
    const context = await ledger.buildContext(compaction.id);
    // No raw turn is left, but a request needs a user message: the continuation marker is one.
    expect(context.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: CONTINUATION_MARKER }] }]);
    expect(context.includedTurnIds).toEqual([]);
    expect(context.system).toContain('Short summary.');
    // Nothing since: nothing to compact, and nothing written.
    const rows = countRows(ledger, 'agent_turns');
    await expect(ledger.compact(session.id)).rejects.toBeInstanceOf(NothingToCompactError);
    expect(countRows(ledger, 'agent_turns')).toBe(rows);
  });
});

describe('compact failures write nothing', () => {
  async function state(temp: TempLedger, sessionId: string) {
    const { ledger } = temp;
    return {
      session: await ledger.getSession(sessionId),
      history: await sessionHistory(ledger, sessionId),
      turns: countRows(ledger, 'agent_turns'),
      sessions: countRows(ledger, 'agent_sessions'),
    };
  }

  it('when the summarizer throws, the error propagates and the ledger is unchanged', async () => {
    const error = new SummarizerError('model unavailable', 'throwing');
    const summarizer = throwingSummarizer(error);
    temp = openTempLedger({ summarizer });
    const { ledger } = temp;
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 30, 40);
    const before = await state(temp, session.id);
    await expect(ledger.compact(session.id)).rejects.toBe(error);
    expect(summarizer.calls).toBe(1);
    expect(await state(temp, session.id)).toEqual(before);
    // The session still works.
    const next = await ledger.appendTurn(session.id, userTurn('still here'));
    expect(next.parentTurnId).toBe(before.session.headTurnId);
  });

  it('when the summary would not shrink the context, CompactionWouldNotShrinkError and nothing written', async () => {
    temp = openTempLedger({ summarizer: hugeSummarizer() });
    const { ledger } = temp;
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 30, 40);
    const before = await state(temp, session.id);
    const usage = await ledger.contextUsage(session.id);
    const error = await ledger.compact(session.id).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CompactionWouldNotShrinkError);
    const refused = error as CompactionWouldNotShrinkError;
    expect(refused.code).toBe('COMPACTION_WOULD_NOT_SHRINK');
    expect(refused.sessionId).toBe(session.id);
    expect(refused.tokensBefore).toBe(usage.contextTokens);
    expect(refused.tokensAfter).toBeGreaterThanOrEqual(refused.tokensBefore);
    expect(await state(temp, session.id)).toEqual(before);
  });

  it('a strategy returning a cut outside the window is refused and nothing is written', async () => {
    const rogue: CompactionStrategy = {
      name: 'rogue',
      contractVersion: STRATEGY_CONTRACT_VERSION,
      async plan(input) {
        return {
          summary: 'x',
          summarizedThroughTurnId: 'not-a-turn',
          firstKeptTurnId: input.window[0]?.id ?? null,
          summarizer: 'none',
          usage: { inputTokens: 0, outputTokens: 0 },
        };
      },
    };
    temp = openTempLedger({ strategies: [rogue] });
    const { ledger } = temp;
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 10, 40);
    const before = await state(temp, session.id);
    await expect(ledger.compact(session.id, { strategy: 'rogue' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await state(temp, session.id)).toEqual(before);
  });

  it('a custom strategy by name is used and recorded', async () => {
    const halves: CompactionStrategy = {
      name: 'halves',
      contractVersion: STRATEGY_CONTRACT_VERSION,
      async plan(input) {
        const half = Math.floor(input.window.length / 2);
        return {
          summary: 'First half.',
          summarizedThroughTurnId: input.window[half - 1]?.id as string,
          firstKeptTurnId: input.window[half]?.id ?? null,
          summarizer: 'manual',
          usage: { inputTokens: 1, outputTokens: 1 },
        };
      },
    };
    temp = openTempLedger({ strategies: [halves], defaultStrategy: 'halves' });
    const { ledger } = temp;
    const session = await newSession(ledger);
    const ids = await appendConversation(ledger, session.id, 10, 40);
    const compaction: CompactionTurn = await ledger.compact(session.id);
    expect(compaction.strategy).toBe('halves');
    expect(compaction.summarizedThroughTurnId).toBe(ids[4]);
    expect(compaction.firstKeptTurnId).toBe(ids[5]);
    expect(normalIds(await ledger.getSummarizedTurns(compaction.id))).toEqual(ids.slice(0, 5));
  });
});

describe('shouldCompact and contextUsage', () => {
  it('reports the context size against contextWindow - reserveTokens', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    expect(await ledger.contextUsage(session.id)).toEqual({
      contextTokens: 0,
      limit: SMALL_SETTINGS.contextWindow - SMALL_SETTINGS.reserveTokens,
      shouldCompact: false,
    });
    const turns = await ledger.appendTurns(session.id, [userTurn('a short question'), assistantTurn('a short answer')]);
    const usage = await ledger.contextUsage(session.id);
    expect(usage.contextTokens).toBe(turns.reduce((sum, turn) => sum + turn.tokenCount, 0));
    expect(await ledger.shouldCompact(session.id)).toBe(false);
    while (!(await ledger.shouldCompact(session.id))) await appendConversation(ledger, session.id, 2, 40, usage.contextTokens);
    const over = await ledger.contextUsage(session.id);
    expect(over.contextTokens).toBeGreaterThan(over.limit);
    await ledger.compact(session.id, { trigger: 'threshold' });
    expect(await ledger.shouldCompact(session.id)).toBe(false);
  });
});

describe('compact with keepFromTurnId', () => {
  it('keeps that turn and everything after it raw, where the cut would have summarized them', async () => {
    temp = openTempLedger({ summarizer: createExtractiveSummarizer() });
    const { ledger } = temp;
    // keepRecentTokens 1: the plain cut summarizes every turn, the question included.
    const settings = { contextWindow: 10_000, reserveTokens: 100, keepRecentTokens: 1 };
    const turns = [userTurn(prose(60, 1)), assistantTurn(prose(60, 2)), userTurn(`What did we decide? ${prose(60, 3)}`)];
    const plain = await ledger.createSession({ settings });
    await ledger.appendTurns(plain.id, turns);
    expect((await ledger.compact(plain.id, { trigger: 'overflow' })).firstKeptTurnId).toBeNull();

    const session = await ledger.createSession({ settings });
    const [, , question] = await ledger.appendTurns(session.id, turns);
    const compaction = await ledger.compact(session.id, { trigger: 'overflow', keepFromTurnId: question?.id });
    expect(compaction.firstKeptTurnId).toBe(question?.id);
    expect((await ledger.getSummarizedTurns(compaction.id)).map((turn) => turn.id)).not.toContain(question?.id);
  });

  it('refuses with NothingToCompactError when the kept turn is the oldest, writing nothing', async () => {
    temp = openTempLedger({ summarizer: createExtractiveSummarizer() });
    const { ledger } = temp;
    const session = await ledger.createSession({
      settings: { contextWindow: 10_000, reserveTokens: 100, keepRecentTokens: 5_000 },
    });
    const only = await ledger.appendTurn(session.id, userTurn(prose(200, 4)));
    await expect(ledger.compact(session.id, { trigger: 'overflow', keepFromTurnId: only.id })).rejects.toMatchObject({
      code: 'NOTHING_TO_COMPACT',
    });
    expect((await ledger.getSession(session.id)).headTurnId).toBe(only.id);
  });
});
