// The tool loop of one answer: ask the model, record its reply, run the tools it calls and record
// their results (one user turn pairing every call with its result), and ask again, until it answers
// without tools or the turn's tool rounds are used up. It knows no ledger, model or toolbox: the
// runtime hands it those as three functions, so it runs as well on a scripted model.

import type { AppendTurnInput } from '@agent-ledger/agents-ledger';
import type { NormalTurn, ToolResultBlock, ToolUseBlock } from '@agent-ledger/core';
import type { ModelReply } from './chat-model.ts';
import type { ContextSummary, ToolChoice } from './model-prompt.ts';
import { refusedResults, replyTurnInput, toolCalls } from './reply-turns.ts';

/** One model call: the reply, and the context it was given. */
export interface ModelCall {
  reply: ModelReply;
  context: ContextSummary;
}

export interface ToolLoopDeps {
  /** Asks the model at the session's head as it stands. */
  callModel(toolChoice: ToolChoice): Promise<ModelCall>;
  /** Runs the calls in order, one result each; `turnIds` are the turns the model already has. */
  runTools(calls: ToolUseBlock[], turnIds: readonly string[]): Promise<ToolResultBlock[]>;
  /** Appends a turn to the session. */
  append(turn: AppendTurnInput): Promise<NormalTurn>;
}

export interface ToolLoopInput {
  /** Model calls that may use tools; the one after them must answer (tool choice `none`). */
  maxToolRounds: number;
  /** Turns of this answer recorded before (answering a question already in the ledger). */
  currentTurnIds?: readonly string[];
  /** Turns this answer appended before the loop (the user's new message). */
  appended?: readonly NormalTurn[];
}

export interface ToolLoopOutcome {
  /** The last reply and its turn: the answer (or the call past the limit that ended the turn). */
  reply: ModelReply;
  replyTurn: NormalTurn;
  /** `input.appended`, then every turn the loop appended, in order. */
  turns: NormalTurn[];
  /** The context of the last model call. */
  context: ContextSummary;
  /** Summed over the replies. */
  usage: { inputTokens: number; outputTokens: number };
}

export async function runToolLoop(deps: ToolLoopDeps, input: ToolLoopInput): Promise<ToolLoopOutcome> {
  const { maxToolRounds } = input;
  const turns = [...(input.appended ?? [])];
  const usage = { inputTokens: 0, outputTokens: 0 };
  for (let toolRounds = 0; ; toolRounds += 1) {
    // Past the last tool round the tools stay defined (the API refuses tool blocks without them),
    // but the model may not call one: it has to answer.
    const toolChoice: ToolChoice = toolRounds < maxToolRounds ? 'auto' : 'none';
    const { reply, context } = await deps.callModel(toolChoice);
    usage.inputTokens += reply.usage.inputTokens;
    usage.outputTokens += reply.usage.outputTokens;
    const replyTurn = await deps.append(replyTurnInput(reply, context.tokens));
    turns.push(replyTurn);

    const calls = toolCalls(reply);
    // A model that calls tools after it was told not to ends the turn anyway: its calls get an
    // error result (a tool_use may not stay unanswered) and nothing more is asked of it.
    const overLimit = calls.length > 0 && toolChoice === 'none';
    if (overLimit) turns.push(await deps.append({ role: 'user', content: refusedResults(calls, maxToolRounds) }));
    if (calls.length === 0 || overLimit) return { reply, replyTurn, turns, context, usage };

    const results = await deps.runTools(calls, [...(input.currentTurnIds ?? []), ...turns.map((turn) => turn.id)]);
    turns.push(await deps.append({ role: 'user', content: results }));
  }
}
