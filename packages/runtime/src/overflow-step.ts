// One model call of an answer, and what happens when the API says the prompt is too long: believe
// the provider (its count teaches the session its real window), compact once (trigger `overflow`)
// and retry with a budget that fits; unless the report contradicts the prompts the model already
// answered, when the retry goes out as it was (runtime-kit's overflow-judgement.ts). An answer
// recovers once, across all its model calls: a second overflow reaches the caller as the error
// saying what to change, with every turn kept. Every prompt the model answers is reported back as
// evidence (promptAccepted).

import { type AgentsLedger, providerPromptLimit, unusableWindow } from '@agent-ledger/agents-ledger';
import { type CompactionTurn, ContextOverflowError, type Session } from '@agent-ledger/core';
import {
  type CompactionScheduler,
  type OverflowDoubt,
  type PromptEvidence,
  promptAccepted,
  recoverFromOverflow,
  refusedDespiteDoubt,
  type WindowLearnedNotice,
} from '@agent-ledger/runtime-kit';
import type { ChatModel, ModelReply } from './chat-model.ts';
import type { Prompt } from './model-prompt.ts';
import { stillTooLong } from './runtime-errors.ts';
import type { OverflowDoubtedNotice } from './runtime-types.ts';

export interface OverflowStepDeps {
  ledger: AgentsLedger;
  scheduler: CompactionScheduler;
  evidence: PromptEvidence;
  notify?: (notice: WindowLearnedNotice | OverflowDoubtedNotice) => void;
  model: ChatModel;
  /** Count the prompt's exact tokens before sending it (when the model can), recovering there instead. */
  countTokensFirst?: boolean;
  /** What every prompt carries beside the ledger's context (tool definitions), estimated. */
  overheadTokens: number;
  /** The prompt at the session's head as it stands, its context built within `budgetTokens`. */
  buildPrompt(budgetTokens: number): Promise<Prompt>;
}

/** What the model calls of one answer share; `answerState` starts it. */
export interface OverflowState {
  sessionId: string;
  /** The budget the next prompt's context is built with (a recovery cuts it for the rest of the answer). */
  budgetTokens: number;
  /** The turn being answered: an overflow compaction keeps it raw. */
  keepFromTurnId?: string;
  /** This answer has recovered once already: the next overflow reaches the caller. */
  recovered: boolean;
  /** The compaction a recovery wrote (or waited for), if one did. */
  compaction: CompactionTurn | null;
  /** The recovery set the report aside as contradicting what the model accepted. */
  doubt: OverflowDoubt | null;
  /** Requests sent to the model (refused ones included; a prompt refused by counting first is not one). */
  modelCalls: number;
}

export function answerState(sessionId: string, budgetTokens: number, keepFromTurnId?: string): OverflowState {
  return {
    sessionId,
    budgetTokens,
    ...(keepFromTurnId ? { keepFromTurnId } : {}),
    recovered: false,
    compaction: null,
    doubt: null,
    modelCalls: 0,
  };
}

/** A model that already said its window holds no conversation is not asked again. */
export function refuseUnusableWindow(session: Session): void {
  const unusable = unusableWindow(session);
  if (unusable) {
    throw new ContextOverflowError(
      `Not sent: ${unusable.message} Nothing was lost; fork the session with a window that fits (\`nexus fork <turnId> --context-window N\`).`,
      null,
      null,
      { cause: unusable },
    );
  }
}

/** Builds the prompt and sends it; on an overflow, recovers (once per answer) and sends the rebuilt one. */
export async function callWithRecovery(
  deps: OverflowStepDeps,
  state: OverflowState,
): Promise<{ reply: ModelReply; prompt: Prompt }> {
  const { model } = deps;
  for (;;) {
    const prompt = await deps.buildPrompt(state.budgetTokens);
    let preflight = false;
    try {
      if (deps.countTokensFirst && model.countTokens) {
        preflight = true;
        await checkFits(model, prompt);
        preflight = false;
      }
      state.modelCalls += 1;
      const reply = await model.respond(prompt.request);
      await promptAccepted(deps, {
        sessionId: state.sessionId,
        estimatedTokens: prompt.context.tokens + deps.overheadTokens,
        providerTokens: reply.usage.inputTokens,
        calibration: prompt.session.calibration,
      });
      return { reply, prompt };
    } catch (error) {
      if (!ContextOverflowError.isInstance(error)) throw error;
      if (state.recovered && state.doubt) throw refusedDespiteDoubt(error, state.doubt);
      if (state.recovered) throw stillTooLong({ modelName: model.name, error, head: prompt.head, session: prompt.session });
      state.recovered = true;
      await recover(deps, state, { overflow: error, prompt, preflight });
    }
  }
}

/**
 * The provider's count is the truth: the session learns its real window from it (so the retry and
 * every later turn fit, and a restart remembers it), and a compaction makes room.
 */
async function recover(
  deps: OverflowStepDeps,
  state: OverflowState,
  refused: { overflow: ContextOverflowError; prompt: Prompt; preflight: boolean },
): Promise<void> {
  const { overheadTokens } = deps;
  const recovery = await recoverFromOverflow(
    {
      ledger: deps.ledger,
      scheduler: deps.scheduler,
      evidence: deps.evidence,
      ...(deps.notify ? { notify: deps.notify } : {}),
    },
    {
      sessionId: state.sessionId,
      overflow: refused.overflow,
      budgetTokens: state.budgetTokens,
      estimatedTokens: refused.prompt.context.tokens + overheadTokens,
      overheadTokens,
      preflight: refused.preflight,
      ...(state.keepFromTurnId ? { keepFromTurnId: state.keepFromTurnId } : {}),
    },
  );
  state.compaction = recovery.compaction;
  state.budgetTokens = recovery.budgetTokens;
  state.doubt = recovery.doubt;
  if (recovery.doubt) {
    try {
      deps.notify?.({ type: 'overflow-doubted', sessionId: state.sessionId, doubt: recovery.doubt });
    } catch {
      // A listener's failure is the listener's.
    }
  }
}

/** Throws the ContextOverflowError the API would, before it is asked, when the exact count is over. */
async function checkFits(model: ChatModel, prompt: Prompt): Promise<void> {
  // The exact count is the provider's: compare it with the limit in the provider's tokens, not
  // with settings a calibration has rescaled into the estimate's.
  const limit = providerPromptLimit(prompt.session);
  const exact = await (model.countTokens as NonNullable<ChatModel['countTokens']>)(prompt.request);
  if (exact > limit) {
    throw new ContextOverflowError(`The prompt counts ${exact} tokens > ${limit} (count-tokens, before sending).`, exact, limit);
  }
}
