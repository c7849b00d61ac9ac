// The overflow step on its own: one model call of an answer against a scripted model, with a real
// ledger on a SQLite file, the real compaction scheduler and the real prompt building; no runtime.
// An overflow teaches the session its window, compacts once and retries once; a second refusal
// reaches the caller, with every turn kept.

import { type AgentsLedger, providerPromptLimit } from '@agent-ledger/agents-ledger';
import { ContextOverflowError, ModelError, type NormalTurn } from '@agent-ledger/core';
import { CompactionScheduler, contextBudget, PromptEvidence } from '@agent-ledger/runtime-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatModel, ModelReply, ModelRequest, RuntimeNotice } from '../src/index.ts';
import { buildPrompt } from '../src/model-prompt.ts';
import { answerState, callWithRecovery, type OverflowStepDeps, refuseUnusableWindow } from '../src/overflow-step.ts';
import { compactions, newSession, normalTurns, prose, Resources, rejection, sessionHistory } from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

const QUESTION = 'What did we decide about the retry budget?';
const ANSWER: ModelReply = {
  content: [{ type: 'text', text: 'Three retries.' }],
  stopReason: 'end_turn',
  model: 'scripted-model',
  usage: { inputTokens: 100, outputTokens: 5 },
};

function tooLong(promptTokens: number, limitTokens: number): ContextOverflowError {
  return new ContextOverflowError(
    `prompt is too long: ${promptTokens} tokens > ${limitTokens} maximum`,
    promptTokens,
    limitTokens,
  );
}

/** A model that answers from `script` in order (an Error is thrown) and keeps every request it got. */
function scriptedModel(script: Array<ModelReply | Error>, countTokens?: (request: ModelRequest) => Promise<number>) {
  const requests: ModelRequest[] = [];
  const model: ChatModel = {
    name: 'scripted-model',
    label: 'scripted',
    async respond(request) {
      requests.push(request);
      const next = script[requests.length - 1];
      if (!next) throw new Error('the script ran out: the step asked once too often');
      if (next instanceof Error) throw next;
      return next;
    },
    ...(countTokens ? { countTokens } : {}),
  };
  return { model, requests };
}

/** A session of six exchanges and a question awaiting its answer. */
async function conversation(questionText = QUESTION) {
  const { ledger } = resources.ledgers();
  const session = await newSession(ledger);
  const earlier: NormalTurn[] = [];
  for (let index = 0; index < 6; index += 1) {
    earlier.push(await ledger.appendTurn(session.id, { role: 'user', content: prose(40, index) }));
    earlier.push(await ledger.appendTurn(session.id, { role: 'assistant', content: prose(40, index + 20) }));
  }
  const question = await ledger.appendTurn(session.id, { role: 'user', content: questionText });
  return { ledger, sessionId: session.id, turns: [...earlier, question], question };
}

/** The step's dependencies on the real ledger and scheduler; `budgets` records what each prompt was built with. */
function stepDeps(ledger: AgentsLedger, sessionId: string, model: ChatModel, countTokensFirst = false) {
  const notices: RuntimeNotice[] = [];
  const budgets: number[] = [];
  const notify = (notice: RuntimeNotice) => notices.push(notice);
  const deps: OverflowStepDeps = {
    ledger,
    scheduler: new CompactionScheduler(ledger, {}, notify),
    evidence: new PromptEvidence(),
    notify,
    model,
    countTokensFirst,
    overheadTokens: 0,
    buildPrompt: (budgetTokens) => {
      budgets.push(budgetTokens);
      const settings = { ledger, retrieval: false, tools: [], toolTokens: 0 };
      return buildPrompt(settings, { sessionId, budgetTokens, query: QUESTION, toolChoice: 'auto' });
    },
  };
  return { deps, notices, budgets };
}

async function startState(ledger: AgentsLedger, sessionId: string, question: NormalTurn) {
  const session = await ledger.getSession(sessionId);
  return answerState(sessionId, contextBudget(session.settings), question.id);
}

function lastMessageText(request: ModelRequest | undefined): unknown {
  return request?.messages.at(-1)?.content;
}

describe('a prompt that fits', () => {
  it('is sent once; nothing is learned or compacted', async () => {
    const { ledger, sessionId, question, turns } = await conversation();
    const { model, requests } = scriptedModel([ANSWER]);
    const { deps, budgets } = stepDeps(ledger, sessionId, model);
    const state = await startState(ledger, sessionId, question);
    const budget = state.budgetTokens;

    const { reply, prompt } = await callWithRecovery(deps, state);
    expect(reply).toBe(ANSWER);
    expect(requests).toEqual([prompt.request]);
    expect(budgets).toEqual([budget]);
    expect(state).toMatchObject({ recovered: false, compaction: null, modelCalls: 1, budgetTokens: budget });
    expect(prompt.head).toBe(question.id);
    const history = await sessionHistory(ledger, sessionId);
    expect(history.map((turn) => turn.id)).toEqual(turns.map((turn) => turn.id));
    expect((await ledger.getSession(sessionId)).calibration).toBeNull();
  });
});

describe('one overflow', () => {
  it('learns the window, compacts once (trigger overflow, the question kept raw) and retries once with a budget that fits', async () => {
    const { ledger, sessionId, question, turns } = await conversation();
    const { model, requests } = scriptedModel([tooLong(210_000, 200_000), ANSWER]);
    const { deps, notices, budgets } = stepDeps(ledger, sessionId, model);
    const state = await startState(ledger, sessionId, question);
    const firstBudget = state.budgetTokens;

    const { reply, prompt } = await callWithRecovery(deps, state);
    expect(reply).toBe(ANSWER);
    expect(requests).toHaveLength(2);
    expect(state.modelCalls).toBe(2);
    expect(state.recovered).toBe(true);

    // The window the provider's count implies is the session's now, and the retry was built within it.
    const learned = await ledger.getSession(sessionId);
    expect(learned.calibration).toMatchObject({ promptTokens: 210_000, providerWindowTokens: 200_000 });
    expect(notices).toContainEqual(expect.objectContaining({ type: 'window-learned', sessionId, settings: learned.settings }));
    expect(state.budgetTokens).toBe(Math.min(firstBudget, contextBudget(learned.settings)));
    expect(state.budgetTokens).toBeLessThan(firstBudget);
    expect(budgets).toEqual([firstBudget, state.budgetTokens]);

    // One overflow compaction, landed after the question; the retry starts from it, the question last.
    const history = await sessionHistory(ledger, sessionId);
    expect(compactions(history).map((turn) => [turn.id, turn.trigger])).toEqual([[state.compaction?.id, 'overflow']]);
    expect(history.map((turn) => turn.id).slice(-2)).toEqual([question.id, state.compaction?.id]);
    expect(normalTurns(history).map((turn) => turn.id)).toEqual(turns.map((turn) => turn.id));
    expect(prompt.context.compactionTurnId).toBe(state.compaction?.id);
    expect(lastMessageText(requests[1])).toEqual([{ type: 'text', text: QUESTION }]);
    expect(await ledger.doctor()).toEqual([]);
  });
  it('keeps the question raw even when it is longer than the raw share the learned window leaves', async () => {
    // The learned window scales keepRecentTokens down to a few dozen tokens; this question is more.
    const long = prose(120, 99);
    const { ledger, sessionId, question } = await conversation(long);
    const { model, requests } = scriptedModel([tooLong(210_000, 200_000), ANSWER]);
    const { deps } = stepDeps(ledger, sessionId, model);
    const state = await startState(ledger, sessionId, question);

    await callWithRecovery(deps, state);
    expect((await ledger.getSession(sessionId)).settings.keepRecentTokens).toBeLessThan(ledger.tokenCounter.countText(long));
    expect(state.compaction).toMatchObject({ trigger: 'overflow' });
    expect(requests[1]?.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: long }] }]);
  });
});

describe('a second refusal', () => {
  it('reaches the caller as "still too long" after exactly two requests and one compaction; the ledger holds every turn', async () => {
    const { ledger, sessionId, question, turns } = await conversation();
    const second = tooLong(205_000, 200_000);
    // A third answer is scripted: a step that retried again would get it and resolve.
    const { model, requests } = scriptedModel([tooLong(210_000, 200_000), second, ANSWER]);
    const { deps } = stepDeps(ledger, sessionId, model);
    const state = await startState(ledger, sessionId, question);

    const error = await rejection(callWithRecovery(deps, state));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(error.message).toContain('still too long for scripted-model after compacting once');
    expect(error.message).toContain('Nothing was lost');
    expect(error.cause).toBe(second);
    expect([(error as ContextOverflowError).promptTokens, (error as ContextOverflowError).limitTokens]).toEqual([
      205_000, 200_000,
    ]);
    expect(requests).toHaveLength(2);
    expect(state.modelCalls).toBe(2);

    const history = await sessionHistory(ledger, sessionId);
    expect(compactions(history).map((turn) => turn.trigger)).toEqual(['overflow']);
    expect(normalTurns(history).map((turn) => turn.id)).toEqual(turns.map((turn) => turn.id));
    expect(normalTurns(history).at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: QUESTION }] });
    expect(error.message).toContain(state.compaction?.id);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('counts across the answer: after one call recovered, the next call of the same answer does not recover again', async () => {
    const { ledger, sessionId, question } = await conversation();
    const later = tooLong(205_000, 200_000);
    const { model, requests } = scriptedModel([tooLong(210_000, 200_000), ANSWER, later, ANSWER]);
    const { deps } = stepDeps(ledger, sessionId, model);
    const state = await startState(ledger, sessionId, question);

    await callWithRecovery(deps, state); // a first tool round: refused, recovered, answered
    const error = await rejection(callWithRecovery(deps, state));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(error.cause).toBe(later);
    expect(requests).toHaveLength(3);
    expect(compactions(await sessionHistory(ledger, sessionId))).toHaveLength(1);
  });
});

describe('what is not an overflow', () => {
  it('passes through as it is: no retry, nothing learned or compacted', async () => {
    const { ledger, sessionId, question, turns } = await conversation();
    const failure = new ModelError('HTTP 500 from the API', 'scripted-model');
    const { model, requests } = scriptedModel([failure, ANSWER]);
    const { deps } = stepDeps(ledger, sessionId, model);
    const state = await startState(ledger, sessionId, question);

    expect(await rejection(callWithRecovery(deps, state))).toBe(failure);
    expect(requests).toHaveLength(1);
    expect(state).toMatchObject({ recovered: false, compaction: null, modelCalls: 1 });
    expect((await sessionHistory(ledger, sessionId)).map((turn) => turn.id)).toEqual(turns.map((turn) => turn.id));
    expect((await ledger.getSession(sessionId)).calibration).toBeNull();
  });
});

describe('counting tokens first', () => {
  it('an exact count over the limit recovers before anything is sent; the limit is not taken as the provider window', async () => {
    const { ledger, sessionId, question } = await conversation();
    const counts: number[] = [];
    const limit = providerPromptLimit(await ledger.getSession(sessionId));
    const { model, requests } = scriptedModel([ANSWER], async () => {
      counts.push(counts.length === 0 ? limit + 50_000 : 1_000);
      return counts.at(-1) as number;
    });
    const { deps } = stepDeps(ledger, sessionId, model, true);
    const state = await startState(ledger, sessionId, question);

    const { reply } = await callWithRecovery(deps, state);
    expect(reply).toBe(ANSWER);
    expect(counts).toEqual([limit + 50_000, 1_000]);
    // Only the request that fitted was sent, and only it counts as a model call.
    expect(requests).toHaveLength(1);
    expect(state.modelCalls).toBe(1);
    expect(state.compaction).toMatchObject({ trigger: 'overflow' });
    expect((await ledger.getSession(sessionId)).calibration).toMatchObject({
      promptTokens: limit + 50_000,
      providerWindowTokens: null,
    });
  });
  it('a count that fits but a refusal from the API: the limit the API named is learned as the provider window', async () => {
    const { ledger, sessionId, question } = await conversation();
    const { model, requests } = scriptedModel([tooLong(210_000, 200_000), ANSWER], async () => 1_000);
    const { deps } = stepDeps(ledger, sessionId, model, true);
    const state = await startState(ledger, sessionId, question);

    expect((await callWithRecovery(deps, state)).reply).toBe(ANSWER);
    expect(requests).toHaveLength(2);
    expect(state.modelCalls).toBe(2);
    expect((await ledger.getSession(sessionId)).calibration).toMatchObject({
      promptTokens: 210_000,
      providerWindowTokens: 200_000,
    });
  });
});

describe('a window the model said holds no conversation', () => {
  it('is refused before anything is built or sent', async () => {
    const { ledger, sessionId } = await conversation();
    // A report that leaves fewer than a conversation's tokens: recorded, and refused from then on.
    await expect(ledger.calibrate(sessionId, { promptTokens: 10_000_000, estimatedTokens: 10 })).rejects.toThrow();
    const session = await ledger.getSession(sessionId);
    expect(() => refuseUnusableWindow(session)).toThrow(ContextOverflowError);
    expect(() => refuseUnusableWindow(session)).toThrow(/^Not sent: .*too small for a conversation.*Nothing was lost/);
  });

  it('a session with a usable window passes', async () => {
    const { ledger, sessionId } = await conversation();
    const session = await ledger.getSession(sessionId);
    expect(() => refuseUnusableWindow(session)).not.toThrow();
  });
});
