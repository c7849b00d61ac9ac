// Answering the session's newest question: the tool loop, each of its model calls built at the
// head as it stands and sent through the overflow step (one recovery per answer), then compaction
// handed to the scheduler, which runs it off the critical path.

import type { NormalTurn } from '@agent-ledger/core';
import { buildPrompt, contextSummary } from './model-prompt.ts';
import { answerState, callWithRecovery, type OverflowStepDeps, refuseUnusableWindow } from './overflow-step.ts';
import { replyText } from './reply-turns.ts';
import { promptSettings, type RuntimeParts, sessionBudget } from './runtime-parts.ts';
import type { RunTurnOptions, TurnResult } from './runtime-types.ts';
import { runToolLoop } from './tool-loop.ts';

export interface AnswerRequest {
  sessionId: string;
  /** The question's text: what to retrieve by unless `turnOptions.query` says otherwise. */
  incoming: string;
  turnOptions: Omit<RunTurnOptions, 'inbound'>;
  /** The question, when it was recorded before this call (a redelivery, respond()). */
  currentTurnIds?: string[];
  /** Turns this call appended before answering (the user's new message). */
  appended: NormalTurn[];
}

export type AnswerResult = Omit<TurnResult, 'userTurn' | 'eventId'>;

export async function answer(parts: RuntimeParts, request: AnswerRequest): Promise<AnswerResult> {
  const { ledger, scheduler, evidence, toolbox } = parts;
  const { sessionId, turnOptions, currentTurnIds } = request;
  const model = turnOptions.model ?? parts.options.model;
  const session = await ledger.getSession(sessionId);
  refuseUnusableWindow(session);
  const state = answerState(sessionId, sessionBudget(parts, session.settings), currentTurnIds?.[0] ?? request.appended[0]?.id);
  const overflowStep: Omit<OverflowStepDeps, 'buildPrompt'> = {
    ledger,
    scheduler,
    evidence,
    notify: parts.notify,
    model,
    countTokensFirst: parts.options.countTokensBeforeSending === true,
    overheadTokens: parts.toolTokens,
  };
  const settings = promptSettings(parts);
  const query = turnOptions.query ?? request.incoming;
  const outcome = await runToolLoop(
    {
      callModel: async (toolChoice) => {
        const buildFor = (budgetTokens: number) =>
          buildPrompt(settings, {
            sessionId,
            budgetTokens,
            query,
            toolChoice,
            ...(turnOptions.signal ? { signal: turnOptions.signal } : {}),
          });
        const { reply, prompt } = await callWithRecovery({ ...overflowStep, buildPrompt: buildFor }, state);
        return { reply, context: contextSummary(prompt) };
      },
      runTools: (calls, turnIds) => toolbox.run(sessionId, calls, turnIds),
      append: (turn) => ledger.appendTurn(sessionId, turn),
    },
    { maxToolRounds: parts.maxToolRounds, appended: request.appended, ...(currentTurnIds ? { currentTurnIds } : {}) },
  );
  await scheduler.afterTurn(sessionId);
  return {
    sessionId,
    reply: outcome.replyTurn,
    text: replyText(outcome.reply),
    turns: outcome.turns,
    duplicate: false,
    context: outcome.context,
    overflowCompaction: state.compaction,
    usage: outcome.usage,
    modelCalls: state.modelCalls,
  };
}
