// A provider's "the prompt is too long" as the ledger's ContextOverflowError, however the Agents SDK
// hands it on: OpenAI's APIError (status 400, code context_length_exceeded, "This model's maximum
// context length is …"), another provider's error, or either as the cause of the runner's own.

import { ContextOverflowError, LedgerError } from '@agent-ledger/core';
import { overflowFromMessage } from '@agent-ledger/runtime-kit';

export function asContextOverflow(error: unknown): ContextOverflowError | null {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (LedgerError.isInstance(current) && current.code === 'CONTEXT_OVERFLOW') return current as ContextOverflowError;
    if (!(current instanceof Error)) continue;
    const status =
      (current as { status?: unknown; statusCode?: unknown }).status ?? (current as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status !== 400 && status !== 413) continue;
    const code = (current as { code?: unknown }).code;
    const figures = overflowFromMessage(`${current.message} ${typeof code === 'string' ? code : ''}`);
    if (figures)
      return new ContextOverflowError(`The prompt is too long (${current.message}).`, figures.promptTokens, figures.limitTokens, {
        cause: error,
      });
  }
  return null;
}
