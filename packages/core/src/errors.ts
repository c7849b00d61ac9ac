// Every error the ledger throws on purpose. Each has a stable `code` a program can switch on and
// a message a person can act on; `isInstance` works even when two copies of this package are
// loaded (it checks a brand, not the prototype chain).

const BRAND = Symbol.for('nexus.LedgerError');

export class LedgerError extends Error {
  readonly code: string;
  readonly [BRAND] = true;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }

  static isInstance(value: unknown): value is LedgerError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

export class TurnNotFoundError extends LedgerError {
  constructor(readonly turnId: string) {
    super(
      'TURN_NOT_FOUND',
      `No turn with id "${turnId}". Check the id: listSessions() gives each session's head turn, and getFullHistory(headTurnId) lists the turns up to it.`,
    );
  }
}

export class SessionNotFoundError extends LedgerError {
  constructor(readonly sessionId: string) {
    super('SESSION_NOT_FOUND', `No session with id "${sessionId}". listSessions() lists the sessions in this ledger.`);
  }
}

export class EventNotFoundError extends LedgerError {
  constructor(readonly eventId: string) {
    super('EVENT_NOT_FOUND', `No event with id "${eventId}". range({ channel }) lists a channel's events.`);
  }
}

export class PayloadTooLargeError extends LedgerError {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      'PAYLOAD_TOO_LARGE',
      `An event payload of ${bytes} bytes is over the limit of ${limit} bytes; store large bodies elsewhere and put a reference in the payload.`,
    );
  }
}

export class SearchSyntaxError extends LedgerError {
  constructor(
    readonly query: string,
    detail: string,
  ) {
    super(
      'SEARCH_SYNTAX',
      `The advanced search query ${JSON.stringify(query)} is not valid FTS5 syntax (${detail}). ` +
        'Quote phrases with "…", use AND/OR/NOT between terms, or search without advanced mode.',
    );
  }
}

export class HeadConflictError extends LedgerError {
  constructor(
    readonly sessionId: string,
    readonly expected: string | null,
    readonly actual: string | null,
  ) {
    super(
      'HEAD_CONFLICT',
      `Session ${sessionId} moved: expected head ${expected ?? '(empty)'} but it is ${actual ?? '(empty)'}. ` +
        'Another writer appended first; reload the head and retry.',
    );
  }
}

export class EmptySessionError extends LedgerError {
  constructor(readonly sessionId: string) {
    super('EMPTY_SESSION', `Session ${sessionId} has no turns yet; append a turn first.`);
  }
}

export class NothingToCompactError extends LedgerError {
  constructor(
    readonly sessionId: string,
    reason: string,
  ) {
    super('NOTHING_TO_COMPACT', `Nothing to compact in session ${sessionId}: ${reason}`);
  }
}

export class CompactionWouldNotShrinkError extends LedgerError {
  constructor(
    readonly sessionId: string,
    readonly tokensBefore: number,
    readonly tokensAfter: number,
  ) {
    super(
      'COMPACTION_WOULD_NOT_SHRINK',
      `Compaction of session ${sessionId} refused: the context would go from ${tokensBefore} to ${tokensAfter} tokens. ` +
        'Nothing was written. Lower keepRecentTokens or wait for more turns.',
    );
  }
}

export class InvalidInputError extends LedgerError {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super('INVALID_INPUT', message);
  }
}

export class MessageTooLargeError extends LedgerError {
  constructor(
    readonly tokens: number,
    readonly limit: number,
  ) {
    super(
      'MESSAGE_TOO_LARGE',
      `A turn of ~${tokens} tokens is over the limit of ${limit} tokens; split it, or raise the session's contextWindow.`,
    );
  }
}

export class SummarizerError extends LedgerError {
  constructor(
    message: string,
    readonly summarizer: string,
    options?: { cause?: unknown },
  ) {
    super('SUMMARIZER_FAILED', message, options);
  }
}

export class StorageError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORAGE_ERROR', message, options);
  }
}

/**
 * A database asked for by something that only reads is not there, or is not a ledger. Reads never
 * create one: a typo in a path must not produce an empty ledger that then answers "no match" and
 * "ok", nor turn someone else's database into one.
 */
export class DatabaseNotFoundError extends LedgerError {
  constructor(
    readonly path: string,
    readonly reason?: string,
  ) {
    super(
      'DATABASE_NOT_FOUND',
      `${databaseNotFoundReason(path, reason)} ` +
        'Check the location; opening it to write (without readonly or mustExist) creates a new ledger.',
    );
  }
}

/** Why a ledger was not found, without saying what to do (each caller says that in its own terms). */
export function databaseNotFoundReason(path: string, reason?: string): string {
  return reason
    ? `No ledger database at ${path}. ${reason}`
    : `No ledger database at ${path}: it does not exist, and reading never creates one.`;
}

/** A topic (union-find cluster) id that is not a cluster root in the view asked about. */
export class ClusterNotFoundError extends LedgerError {
  constructor(
    readonly clusterId: string,
    detail: string,
  ) {
    super('CLUSTER_NOT_FOUND', `No topic "${clusterId}": ${detail}`);
  }
}

/** A forest that breaks its own invariants (a turn graduated twice, a parent cycle, a lost member). */
export class ForestIntegrityError extends LedgerError {
  constructor(
    message: string,
    readonly ids: string[] = [],
  ) {
    super('FOREST_INTEGRITY', message);
  }
}

/**
 * The model API refused a prompt as longer than its context window. `promptTokens` / `limitTokens`
 * are the API's own figures when its message gives them. The runtime compacts once and retries; this
 * error reaches the caller only when that did not help, and then the ledger holds every turn so far.
 */
export class ContextOverflowError extends LedgerError {
  constructor(
    message: string,
    readonly promptTokens: number | null = null,
    readonly limitTokens: number | null = null,
    options?: { cause?: unknown },
  ) {
    super('CONTEXT_OVERFLOW', message, options);
  }
}

/** The chat model could not answer (after the SDK's retries): rate limits, outages, timeouts, bad replies. */
export class ModelError extends LedgerError {
  constructor(
    message: string,
    readonly model: string,
    options?: { cause?: unknown },
  ) {
    super('MODEL_FAILED', message, options);
  }
}
