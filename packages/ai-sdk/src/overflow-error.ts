// A provider's "the prompt is too long" as the ledger's ContextOverflowError. The AI SDK surfaces
// it as APICallError (status 400, or 413 from some gateways) and leaves the wording to the provider,
// so the words are read (runtime-kit's overflowFromMessage knows Anthropic's, OpenAI's and others').

import { ContextOverflowError, LedgerError } from '@agent-ledger/core';
import { overflowFromMessage } from '@agent-ledger/runtime-kit';
import { APICallError } from '@ai-sdk/provider';

/** The overflow this error reports, or null when it is about something else. */
export function asContextOverflow(error: unknown): ContextOverflowError | null {
  if (LedgerError.isInstance(error) && error.code === 'CONTEXT_OVERFLOW') return error as ContextOverflowError;
  if (APICallError.isInstance(error)) {
    if (error.statusCode !== undefined && error.statusCode !== 400 && error.statusCode !== 413) return null;
    const said = `${error.message} ${error.responseBody ?? ''}`;
    const figures = overflowFromMessage(said);
    return figures
      ? new ContextOverflowError(`The prompt is too long (${error.message}).`, figures.promptTokens, figures.limitTokens, {
          cause: error,
        })
      : null;
  }
  return null;
}
