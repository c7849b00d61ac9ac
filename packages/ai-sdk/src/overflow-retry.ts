// The one retry after a provider said the prompt was too long: learn the window from its count,
// compact (or wait for the background compaction), rebuild the context within the new budget.

import type { AgentsLedger, RetrievalPolicy } from '@agent-ledger/agents-ledger';
import { ContextOverflowError } from '@agent-ledger/core';
import { type CompactionScheduler, recoverFromOverflow, type WindowLearnedNotice } from '@agent-ledger/runtime-kit';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { type CallState, contextFor, newestQuestionId } from './call-state.ts';
import { asContextOverflow } from './overflow-error.ts';

/** What every call of one middleware shares. */
export interface Calls {
  ledger: AgentsLedger;
  scheduler: CompactionScheduler;
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
): Promise<{ state: CallState; params: LanguageModelV3CallOptions }> {
  const overflow = asContextOverflow(error);
  if (!overflow) throw error;
  const { ledger, scheduler, notify } = calls;
  const recovery = await recoverFromOverflow(
    { ledger, scheduler, notify },
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
  return { state: retry.state, params: { ...params, prompt: retry.prompt } };
}

/** The error after the one retry was refused too: an overflow said in the ledger's terms, anything else as it is. */
export function stillTooLong(error: unknown, state: CallState): never {
  const overflow = asContextOverflow(error);
  if (!overflow) throw error;
  throw new ContextOverflowError(
    `The prompt is still too long after compacting once (${overflow.message}); every message is kept in session ${state.lineSessionId}.`,
    overflow.promptTokens,
    overflow.limitTokens,
    { cause: error },
  );
}
