// The tool loop on its own: a scripted model (a list of replies), a scripted tool runner and a real
// ledger on a SQLite file; no runtime, no prompt building. What it asks the model (tool choice per
// round), what it appends (every call paired with its result), and when it stops.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { type ContentBlock, ModelError, type NormalTurn, type ToolResultBlock, type ToolUseBlock } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelReply } from '../src/index.ts';
import type { ContextSummary, ToolChoice } from '../src/model-prompt.ts';
import { runToolLoop, type ToolLoopDeps } from '../src/tool-loop.ts';
import { newSession, normalTurns, Resources, rejection, sessionHistory } from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

const MODEL = 'scripted-model';

function reply(content: ContentBlock[], usage = { inputTokens: 100, outputTokens: 10 }): ModelReply {
  const calls = content.some((block) => block.type === 'tool_use');
  return { content, stopReason: calls ? 'tool_use' : 'end_turn', model: MODEL, usage };
}

function answerWith(text: string): ModelReply {
  return reply([{ type: 'text', text }]);
}

function callTools(...ids: string[]): ModelReply {
  return reply(ids.map((id): ToolUseBlock => ({ type: 'tool_use', id, name: 'lookup', input: { id } })));
}

/** The loop's three functions: replies from `script` (the last one repeats), tools that echo, the real ledger. */
function scripted(ledger: AgentsLedger, sessionId: string, script: ModelReply[]) {
  const choices: ToolChoice[] = [];
  const toolRuns: Array<{ callIds: string[]; turnIds: readonly string[] }> = [];
  const deps: ToolLoopDeps = {
    async callModel(toolChoice) {
      choices.push(toolChoice);
      const next = script[Math.min(choices.length, script.length) - 1];
      if (!next) throw new Error('the script is empty');
      return { reply: next, context: contextOf(choices.length) };
    },
    async runTools(calls, turnIds) {
      toolRuns.push({ callIds: calls.map((call) => call.id), turnIds: [...turnIds] });
      return calls.map((call): ToolResultBlock => ({ type: 'tool_result', tool_use_id: call.id, content: `ran ${call.id}` }));
    },
    append: (turn) => ledger.appendTurn(sessionId, turn),
  };
  return { deps, choices, toolRuns };
}

/** A different context per call, so the outcome shows which call's it reports. */
function contextOf(call: number): ContextSummary {
  return { tokens: 1000 + call, budgetTokens: 5000, compactionTurnId: null, retrievedTurnIds: [], messages: call };
}

async function question(text = 'Which port is the cache on?') {
  const { ledger } = resources.ledgers();
  const session = await newSession(ledger);
  const user = await ledger.appendTurn(session.id, { role: 'user', content: text });
  return { ledger, sessionId: session.id, user };
}

function toolUseIds(turn: NormalTurn | undefined): string[] {
  return (turn?.content ?? []).flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
}

function toolResultIds(turn: NormalTurn | undefined): string[] {
  return (turn?.content ?? []).flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : []));
}

describe('an answer without tools', () => {
  it('stops after one call: the reply is recorded with its model, stop reason, usage and context size', async () => {
    const { ledger, sessionId, user } = await question();
    const { deps, choices, toolRuns } = scripted(ledger, sessionId, [answerWith('On 6379.'), answerWith('never asked')]);

    const outcome = await runToolLoop(deps, { maxToolRounds: 8, appended: [user] });
    expect(choices).toEqual(['auto']);
    expect(toolRuns).toEqual([]);
    expect(outcome.turns.map((turn) => turn.id)).toEqual([user.id, outcome.replyTurn.id]);
    expect(outcome.replyTurn).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'On 6379.' }],
      model: MODEL,
      metadata: { stopReason: 'end_turn', usage: { inputTokens: 100, outputTokens: 10 }, contextTokens: 1001 },
    });
    expect(outcome.context).toEqual(contextOf(1));
    expect(normalTurns(await sessionHistory(ledger, sessionId)).map((turn) => turn.id)).toEqual([user.id, outcome.replyTurn.id]);
  });
});

describe('tool rounds', () => {
  it('pairs every call with its result in the user turn right after it, and asks again until the model answers', async () => {
    const { ledger, sessionId, user } = await question();
    const script = [callTools('toolu_a', 'toolu_b'), callTools('toolu_c'), answerWith('The cache is on 6379.')];
    const { deps, choices, toolRuns } = scripted(ledger, sessionId, script);

    const outcome = await runToolLoop(deps, { maxToolRounds: 8, appended: [user] });
    expect(choices).toEqual(['auto', 'auto', 'auto']);
    const history = normalTurns(await sessionHistory(ledger, sessionId));
    expect(history.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(outcome.turns.map((turn) => turn.id)).toEqual(history.map((turn) => turn.id));
    // Each assistant turn's calls are answered, in order, by the very next turn.
    expect(toolUseIds(history[1])).toEqual(['toolu_a', 'toolu_b']);
    expect(toolResultIds(history[2])).toEqual(['toolu_a', 'toolu_b']);
    expect(toolUseIds(history[3])).toEqual(['toolu_c']);
    expect(toolResultIds(history[4])).toEqual(['toolu_c']);
    expect(history[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: 'ran toolu_a' },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: 'ran toolu_b' },
    ]);
    // The tools see the turns the model already has: the question and the earlier rounds.
    expect(toolRuns).toEqual([
      { callIds: ['toolu_a', 'toolu_b'], turnIds: history.slice(0, 2).map((turn) => turn.id) },
      { callIds: ['toolu_c'], turnIds: history.slice(0, 4).map((turn) => turn.id) },
    ]);
    expect(outcome.reply).toBe(script[2]);
    expect(outcome.replyTurn.id).toBe(history[5]?.id);
    expect(outcome.context).toEqual(contextOf(3));
    expect(outcome.usage).toEqual({ inputTokens: 300, outputTokens: 30 });
    expect(await ledger.doctor()).toEqual([]);
  });

  it('answering a question already recorded: the tools see it first, and the turns are only the new ones', async () => {
    const { ledger, sessionId, user } = await question();
    const { deps, toolRuns } = scripted(ledger, sessionId, [callTools('toolu_a'), answerWith('Done.')]);

    const outcome = await runToolLoop(deps, { maxToolRounds: 8, currentTurnIds: [user.id] });
    expect(outcome.turns.map((turn) => turn.role)).toEqual(['assistant', 'user', 'assistant']);
    expect(toolRuns[0]?.turnIds).toEqual([user.id, outcome.turns[0]?.id]);
  });
});

describe('the tool round limit', () => {
  it('stops at its limit: the call after the last round may not use tools, and its calls get error results, unrun', async () => {
    const { ledger, sessionId, user } = await question();
    // A model that calls a tool every time, told or not.
    const { deps, choices, toolRuns } = scripted(ledger, sessionId, [
      callTools('toolu_1'),
      callTools('toolu_2'),
      callTools('toolu_3'),
    ]);

    const outcome = await runToolLoop(deps, { maxToolRounds: 2, appended: [user] });
    expect(choices).toEqual(['auto', 'auto', 'none']);
    expect(toolRuns.map((run) => run.callIds)).toEqual([['toolu_1'], ['toolu_2']]);
    const history = normalTurns(await sessionHistory(ledger, sessionId));
    expect(history.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(history.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_3', content: 'Not run: this turn used its 2 tool rounds.', is_error: true },
    ]);
    expect(outcome.turns.map((turn) => turn.id)).toEqual(history.map((turn) => turn.id));
    // The outcome's reply is the last assistant turn, not the refusal after it.
    expect(outcome.replyTurn.id).toBe(history[5]?.id);
    expect(toolUseIds(outcome.replyTurn)).toEqual(['toolu_3']);
    // No call is left unanswered.
    expect(await ledger.doctor()).toEqual([]);
  });

  it('an answer in text after the last round ends the turn with nothing refused', async () => {
    const { ledger, sessionId, user } = await question();
    const { deps, choices } = scripted(ledger, sessionId, [callTools('toolu_1'), answerWith('Here is what I found.')]);

    const outcome = await runToolLoop(deps, { maxToolRounds: 1, appended: [user] });
    expect(choices).toEqual(['auto', 'none']);
    expect(outcome.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(outcome.turns.at(-1)?.id).toBe(outcome.replyTurn.id);
  });

  it('with no tool rounds, the first call may not use tools', async () => {
    const { ledger, sessionId, user } = await question();
    const { deps, choices, toolRuns } = scripted(ledger, sessionId, [callTools('toolu_1')]);

    const outcome = await runToolLoop(deps, { maxToolRounds: 0, appended: [user] });
    expect(choices).toEqual(['none']);
    expect(toolRuns).toEqual([]);
    expect(toolResultIds(outcome.turns.at(-1))).toEqual(['toolu_1']);
  });
});

describe('a reply with no content', () => {
  it('is a ModelError; nothing is recorded for it, the rounds before it stay', async () => {
    const { ledger, sessionId, user } = await question();
    const { deps } = scripted(ledger, sessionId, [callTools('toolu_1'), reply([])]);

    const error = await rejection(runToolLoop(deps, { maxToolRounds: 8, appended: [user] }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toContain('answered with no content');
    const history = normalTurns(await sessionHistory(ledger, sessionId));
    expect(history.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(toolResultIds(history.at(-1))).toEqual(['toolu_1']);
  });
});
