// The one retry after a provider said the prompt was too long: learn the window from its count,
// compact (or wait for the background compaction), rebuild the context within the new budget; or,
// when the report contradicts the prompts the model answered, send the prompt again as it was. Every
// answered prompt is reported back as that evidence (runtime-kit's promptAccepted).

import type { AgentsLedger, RetrievalPolicy } from '@agent-ledger/agents-ledger';
import { ContextOverflowError } from '@agent-ledger/core';
import {
  type CompactionScheduler,
  type OverflowDoubt,
  type PromptEvidence,
  promptAccepted,
  recoverFromOverflow,
  refusedDespiteDoubt,
  type WindowLearnedNotice,
} from '@agent-ledger/runtime-kit';
import type { LanguageModelV3CallOptions, LanguageModelV3Usage } from '@ai-sdk/provider';
import { type CallState, contextFor, newestQuestionId } from './call-state.ts';
import { asContextOverflow } from './overflow-error.ts';

/** What every call of one middleware shares. */
export interface Calls {
  ledger: AgentsLedger;
  scheduler: CompactionScheduler;
  /** What the model answered, per session: what an overflow report is weighed against. */
  evidence: PromptEvidence;
  notify: (notice: WindowLearnedNotice) => void;
  retrieval: RetrievalPolicy | false;
  states: WeakMap<LanguageModelV3CallOptions, CallState>;
}

/** The retry's params after an overflow; any other error is thrown as it is. */
export async function retryParams(
  calls: Calls,
  state: CallState,
  params: LanguageModelV3CallOptions,
  error: unknown,
): Promise<{ state: CallState; params: LanguageModelV3CallOptions; doubt: OverflowDoubt | null }> {
  const overflow = asContextOverflow(error);
  if (!overflow) throw error;
  const { ledger, scheduler, evidence, notify } = calls;
  const recovery = await recoverFromOverflow(
    { ledger, scheduler, evidence, notify },
    {
      sessionId: state.lineSessionId,
      overflow,
      budgetTokens: state.budgetTokens,
      estimatedTokens: state.contextTokens + state.toolTokens,
      overheadTokens: state.toolTokens,
      keepFromTurnId: await newestQuestionId(ledger, state.headTurnId),
    },
  );
  // The compaction was linked in after the head: the retry reads the line from its new head.
  const { headTurnId } = await ledger.getSession(state.lineSessionId);
  const retry = await contextFor(
    ledger,
    { ...state, headTurnId: headTurnId ?? state.headTurnId, budgetTokens: recovery.budgetTokens },
    calls.retrieval,
  );
  return { state: retry.state, params: { ...params, prompt: retry.prompt }, doubt: recovery.doubt };
}

/** The model answered the call's prompt: evidence for later overflow reports (and a check on the learned window). */
export async function promptAnswered(calls: Calls, state: CallState, usage: LanguageModelV3Usage | null): Promise<void> {
  const { ledger, scheduler, evidence, notify } = calls;
  await promptAccepted(
    { ledger, scheduler, evidence, notify },
    {
      sessionId: state.lineSessionId,
      estimatedTokens: state.contextTokens + state.toolTokens,
      providerTokens: usage?.inputTokens.total ?? null,
    },
  );
}

/** The error after the one retry was refused too: an overflow said in the ledger's terms, anything else as it is. */
export function stillTooLong(error: unknown, state: CallState, doubt: OverflowDoubt | null): never {
  const overflow = asContextOverflow(error);
  if (!overflow) throw error;
  if (doubt) throw refusedDespiteDoubt(overflow, doubt);
  throw new ContextOverflowError(
    `The prompt is still too long after compacting once (${overflow.message}); every message is kept in session ${state.lineSessionId}.`,
    overflow.promptTokens,
    overflow.limitTokens,
    { cause: error },
  );
}
