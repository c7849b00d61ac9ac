// The agent ledger as an AI SDK language-model middleware (wrapLanguageModel). On every model call
// (every step of a tool loop) it records the prompt's new messages once, sends the model the
// ledger's context for the newest user message instead of the whole history (recall, summary and
// recent turns within the session's window), records the reply (a stream's when it ends), compacts
// in the background past the threshold, and answers a provider's "prompt is too long" by learning the
// window, compacting and retrying once on the inner model (unless the report contradicts the prompts
// the model already answered: then the retry goes out as it was).

import type { AgentsLedger, RetrievalPolicy } from '@agent-ledger/agents-ledger';
import { InvalidInputError } from '@agent-ledger/core';
import {
  type CompactionNotice,
  type CompactionPolicy,
  CompactionScheduler,
  contextBudget,
  DEFAULT_RUNTIME_RETRIEVAL,
  PromptEvidence,
  type WindowLearnedNotice,
} from '@agent-ledger/runtime-kit';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Middleware,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { type CallState, contextFor, recordReply } from './call-state.ts';
import { LedgerLines } from './ledger-lines.ts';
import { type Calls, promptAnswered, retryParams, stillTooLong } from './overflow-retry.ts';
import { type HistoryMode, recordPrompt } from './record-prompt.ts';
import { recordingStream } from './stream-recorder.ts';

export type LedgerMiddlewareNotice = CompactionNotice | WindowLearnedNotice;

export interface LedgerMiddlewareOptions {
  ledger: AgentsLedger;
  /** The conversation's ledger session; a call may name its own as `providerOptions.ledger.sessionId`. */
  sessionId?: string;
  /** 'app' (default): the app sends the whole conversation every call. 'ledger': only what is new. */
  history?: HistoryMode;
  /** Turns recalled for the newest user message (default: half the context, at most 4,000 tokens); false for none. */
  retrieval?: RetrievalPolicy | boolean;
  /** When compactions run (default: in the background past the session's threshold). */
  compaction?: CompactionPolicy;
  onNotice?: (notice: LedgerMiddlewareNotice) => void;
}

export interface LedgerMiddleware extends LanguageModelV3Middleware {
  /** Resolves when no background compaction is running (for one session, or any). */
  idle(sessionId?: string): Promise<void>;
}

export function ledgerMiddleware(options: LedgerMiddlewareOptions): LedgerMiddleware {
  const notify = (notice: LedgerMiddlewareNotice) => {
    try {
      options.onNotice?.(notice);
    } catch {
      // A listener's failure is the listener's.
    }
  };
  const calls: Calls = {
    ledger: options.ledger,
    scheduler: new CompactionScheduler(options.ledger, options.compaction ?? {}, notify),
    evidence: new PromptEvidence(),
    notify,
    retrieval: options.retrieval === undefined || options.retrieval === true ? DEFAULT_RUNTIME_RETRIEVAL : options.retrieval,
    // What transformParams learned about a call, for the wrap that runs it (the same params object).
    states: new WeakMap<LanguageModelV3CallOptions, CallState>(),
  };
  const lines = new LedgerLines(options.ledger);
  return {
    specificationVersion: 'v3',
    transformParams: ({ params, model }) => transform(calls, { lines, options, params, model }),
    wrapGenerate: ({ doGenerate, params, model }) => generate(calls, { doGenerate, params, model }),
    wrapStream: ({ doStream, params, model }) => stream(calls, { doStream, params, model }),
    idle: (sessionId) => calls.scheduler.idle(sessionId),
  };
}

/** Records the prompt's new messages and puts the ledger's context in its place. */
async function transform(
  calls: Calls,
  call: { lines: LedgerLines; options: LedgerMiddlewareOptions; params: LanguageModelV3CallOptions; model: LanguageModelV3 },
): Promise<LanguageModelV3CallOptions> {
  const { ledger } = calls;
  const { params } = call;
  const { ledger: ours, ...providerOptions } = params.providerOptions ?? {};
  const sessionId = (ours as { sessionId?: unknown } | undefined)?.sessionId ?? call.options.sessionId;
  if (typeof sessionId !== 'string' || sessionId === '')
    throw new InvalidInputError(
      'ledgerMiddleware needs a session: pass sessionId to ledgerMiddleware, or providerOptions: { ledger: { sessionId } } to the call.',
      'sessionId',
    );
  const history = call.options.history ?? 'app';
  const recorded = await recordPrompt(ledger, call.lines, { sessionId, prompt: params.prompt, history });
  // Tool definitions go with the prompt beside the context, so they come out of its budget.
  const toolTokens = params.tools?.length ? ledger.tokenCounter.countText(JSON.stringify(params.tools)) : 0;
  const { settings } = await ledger.getSession(recorded.lineSessionId);
  const built = await contextFor(
    ledger,
    {
      lineSessionId: recorded.lineSessionId,
      headTurnId: recorded.headTurnId,
      replyIndex: recorded.replyIndex,
      query: recorded.query,
      system: params.prompt.flatMap((message) => (message.role === 'system' ? [message.content] : [])).join('\n\n'),
      toolTokens,
      budgetTokens: contextBudget(settings, toolTokens),
      modelId: call.model.modelId,
    },
    calls.retrieval,
  );
  const transformed: LanguageModelV3CallOptions = { ...params, prompt: built.prompt, providerOptions };
  calls.states.set(transformed, built.state);
  return transformed;
}

async function generate(
  calls: Calls,
  call: {
    doGenerate: () => PromiseLike<Awaited<ReturnType<LanguageModelV3['doGenerate']>>>;
    params: LanguageModelV3CallOptions;
    model: LanguageModelV3;
  },
): Promise<Awaited<ReturnType<LanguageModelV3['doGenerate']>>> {
  let state = calls.states.get(call.params);
  if (!state) return call.doGenerate();
  let result: Awaited<ReturnType<LanguageModelV3['doGenerate']>>;
  try {
    result = await call.doGenerate();
  } catch (error) {
    const retry = await retryParams(calls, state, call.params, error);
    state = retry.state;
    result = await Promise.resolve(call.model.doGenerate(retry.params)).catch((again: unknown) =>
      stillTooLong(again, retry.state, retry.doubt),
    );
  }
  await promptAnswered(calls, state, result.usage);
  await recordReply(calls.ledger, state, {
    content: result.content,
    usage: result.usage,
    finishReason: result.finishReason,
    complete: true,
  });
  await calls.scheduler.afterTurn(state.lineSessionId);
  return result;
}

async function stream(
  calls: Calls,
  call: { doStream: () => PromiseLike<LanguageModelV3StreamResult>; params: LanguageModelV3CallOptions; model: LanguageModelV3 },
): Promise<LanguageModelV3StreamResult> {
  let state = calls.states.get(call.params);
  if (!state) return call.doStream();
  let opened: LanguageModelV3StreamResult;
  try {
    opened = await call.doStream();
  } catch (error) {
    const retry = await retryParams(calls, state, call.params, error);
    state = retry.state;
    opened = await Promise.resolve(call.model.doStream(retry.params)).catch((again: unknown) =>
      stillTooLong(again, retry.state, retry.doubt),
    );
  }
  const recorded = state;
  return {
    ...opened,
    stream: recordingStream(opened.stream, async (outcome) => {
      // The stream opened: the prompt was accepted; the provider's count of it comes with the end.
      await promptAnswered(calls, recorded, outcome.usage);
      await recordReply(calls.ledger, recorded, {
        blocks: outcome.content,
        usage: outcome.usage,
        finishReason: outcome.finishReason,
        complete: outcome.complete,
        failure: outcome.failure,
      });
      await calls.scheduler.afterTurn(recorded.lineSessionId);
    }),
  };
}
