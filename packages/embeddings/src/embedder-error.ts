// The one error an embedder of this package throws: the endpoint could not be reached, refused the
// request, or answered something that is not one vector per text (or the offline model is not
// installed). It names the endpoint and, when
// there was one, the HTTP status; never the API key. The ledger treats any embedder failure as
// "recall by bm25 alone for this context" (docs/context.md#embeddings); `nexus embed` reports it.

import { LedgerError } from '@agent-ledger/core';

export class EmbedderError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.EmbedderError';
  /** True for failures that may pass when tried later: 408, 409, 429, 5xx, timeouts, connection errors. */
  override readonly isRetryable: boolean;

  constructor(
    message: string,
    readonly details: {
      /** The URL called (credentials removed); null for an embedder that calls none (the offline one). */
      endpoint: string | null;
      /** The HTTP status of the last answer; null when none came (timeout, connection refused). */
      status: number | null;
      retryable: boolean;
      cause?: unknown;
    },
  ) {
    super('EMBEDDER_FAILED', message, details.cause === undefined ? undefined : { cause: details.cause });
    this.isRetryable = details.retryable;
  }

  get endpoint(): string | null {
    return this.details.endpoint;
  }

  get status(): number | null {
    return this.details.status;
  }
}
