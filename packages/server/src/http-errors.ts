// The one place that turns errors into HTTP responses: a LedgerError's stable code picks the
// status, every error body has the same shape `{ error: { code, message } }`, and anything that is
// not a LedgerError is a 500 whose message hides the internals.

import { HeadConflictError, LedgerError } from '@agent-ledger/core';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export interface ErrorBody {
  error: { code: string; message: string; [field: string]: unknown };
}

/** Codes the server itself raises (the ledgers' own codes are in @agent-ledger/core's errors). */
export class HttpError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.HttpError';
  constructor(code: string, message: string) {
    super(code, message);
  }
}

const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  // The caller named something that is not there.
  SESSION_NOT_FOUND: 404,
  TURN_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  CLUSTER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  // The request itself is wrong: fix it and send it again.
  INVALID_INPUT: 400,
  INVALID_JSON: 400,
  SEARCH_SYNTAX: 400,
  // Search by meaning on a server started without an embedding model: search by words, or configure one.
  EMBEDDER_NOT_CONFIGURED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_HOST: 403,
  FORBIDDEN_ORIGIN: 403,
  METHOD_NOT_ALLOWED: 405,
  MESSAGE_TOO_LARGE: 413,
  PAYLOAD_TOO_LARGE: 413,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // The request is fine but the ledger's state refuses it now.
  HEAD_CONFLICT: 409,
  EMPTY_SESSION: 422,
  NOTHING_TO_COMPACT: 422,
  COMPACTION_WOULD_NOT_SHRINK: 422,
  // Not the caller's fault.
  DATABASE_BUSY: 503,
  SUMMARIZER_FAILED: 502,
  MODEL_FAILED: 502,
  EMBEDDER_FAILED: 502,
};

export function statusOf(code: string): ContentfulStatusCode {
  return STATUS_BY_CODE[code] ?? 500;
}

export function errorBody(error: unknown): { status: ContentfulStatusCode; body: ErrorBody } {
  if (LedgerError.isInstance(error)) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    // A stale head says where the head is now, so the client can rebase and retry without a read.
    if (HeadConflictError.isInstance(error)) {
      body.error.sessionId = error.sessionId;
      body.error.expectedHeadTurnId = error.expected;
      body.error.headTurnId = error.actual;
    }
    return { status: statusOf(error.code), body };
  }
  if (error instanceof HTTPException) {
    const code = error.status === 413 ? 'BODY_TOO_LARGE' : error.status === 400 ? 'INVALID_INPUT' : 'HTTP_ERROR';
    return { status: error.status as ContentfulStatusCode, body: { error: { code, message: error.message || 'Bad request.' } } };
  }
  return {
    status: 500,
    body: { error: { code: 'INTERNAL', message: 'Internal server error; the server log has the details.' } },
  };
}

export function respondWithError(context: Context, error: unknown): Response {
  const { status, body } = errorBody(error);
  return context.json(body, status);
}
