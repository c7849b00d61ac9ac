// Every error the ledger throws on purpose. Each has a stable `code` a program can switch on and
// a message a person can act on. Each class declares its own `marker`, and every instance carries the
// markers of its whole class chain, so `TurnNotFoundError.isInstance(error)` (or any class's) works
// even when two copies of this package are loaded, where `instanceof` would fail: it checks a brand,
// not the prototype chain. `isRetryable` says whether the same call may succeed when tried again.

const BRAND = Symbol.for('nexus.LedgerError');
const MARKERS = Symbol.for('agent-ledger.error-markers');

/** A ledger error class as `isInstance` sees it: a constructor with its own marker. */
type LedgerErrorClass = (abstract new (...args: never[]) => LedgerError) & { readonly marker: string };

export class LedgerError extends Error {
  /** The brand of this class; a subclass that declares none would answer for its parent's instances. */
  static readonly marker: string = 'agent-ledger.LedgerError';
  readonly code: string;
  /** True where trying the same call again (after reloading what moved) may succeed. */
  readonly isRetryable: boolean = false;
  readonly [BRAND] = true;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    const markers: string[] = [];
    for (let type: unknown = new.target; typeof type === 'function' && 'marker' in type; type = Object.getPrototypeOf(type))
      markers.push(String(type.marker));
    Object.defineProperty(this, MARKERS, { value: markers });
  }

  /** Whether `value` is an error of this class (or a subclass), from any copy of this package. */
  static isInstance<T extends LedgerErrorClass>(this: T, value: unknown): value is InstanceType<T> {
    // `this` is the class the call names (TurnNotFoundError.isInstance), whose marker is asked for:
    // LedgerError in its place, as the lint suggests, would make every class answer for all.
    // biome-ignore lint/complexity/noThisInStatic: the called subclass's marker is the point
    const marker = this.marker;
    if (typeof value !== 'object' || value === null) return false;
    const markers = (value as Record<symbol, unknown>)[MARKERS];
    if (Array.isArray(markers)) return markers.includes(marker);
    // An error from an older copy carries only the base brand.
    return marker === LedgerError.marker && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

export class TurnNotFoundError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.TurnNotFoundError';
  constructor(readonly turnId: string) {
    super(
      'TURN_NOT_FOUND',
      `No turn with id "${turnId}". Check the id: listSessions() gives each session's head turn, and getFullHistory(headTurnId) lists the turns up to it.`,
    );
  }
}

export class SessionNotFoundError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.SessionNotFoundError';
  constructor(readonly sessionId: string) {
    super('SESSION_NOT_FOUND', `No session with id "${sessionId}". listSessions() lists the sessions in this ledger.`);
  }
}

export class EventNotFoundError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.EventNotFoundError';
  constructor(readonly eventId: string) {
    super('EVENT_NOT_FOUND', `No event with id "${eventId}". range({ channel }) lists a channel's events.`);
  }
}

export class PayloadTooLargeError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.PayloadTooLargeError';
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
  static override readonly marker: string = 'agent-ledger.SearchSyntaxError';
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
  static override readonly marker: string = 'agent-ledger.HeadConflictError';
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

  /** Reload the head and the same append or compaction may land. */
  override readonly isRetryable = true;
}

export class EmptySessionError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.EmptySessionError';
  constructor(readonly sessionId: string) {
    super('EMPTY_SESSION', `Session ${sessionId} has no turns yet; append a turn first.`);
  }
}

export class NothingToCompactError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.NothingToCompactError';
  constructor(
    readonly sessionId: string,
    reason: string,
  ) {
    super('NOTHING_TO_COMPACT', `Nothing to compact in session ${sessionId}: ${reason}`);
  }
}

export class CompactionWouldNotShrinkError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.CompactionWouldNotShrinkError';
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
  static override readonly marker: string = 'agent-ledger.InvalidInputError';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super('INVALID_INPUT', message);
  }
}

export class MessageTooLargeError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.MessageTooLargeError';
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
  static override readonly marker: string = 'agent-ledger.SummarizerError';
  constructor(
    message: string,
    readonly summarizer: string,
    options?: { cause?: unknown },
  ) {
    super('SUMMARIZER_FAILED', message, options);
  }
}

export class StorageError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.StorageError';
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
  static override readonly marker: string = 'agent-ledger.DatabaseNotFoundError';
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
  static override readonly marker: string = 'agent-ledger.ClusterNotFoundError';
  constructor(
    readonly clusterId: string,
    detail: string,
  ) {
    super('CLUSTER_NOT_FOUND', `No topic "${clusterId}": ${detail}`);
  }
}

/** A forest that breaks its own invariants (a turn graduated twice, a parent cycle, a lost member). */
export class ForestIntegrityError extends LedgerError {
  static override readonly marker: string = 'agent-ledger.ForestIntegrityError';
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
  static override readonly marker: string = 'agent-ledger.ContextOverflowError';
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
  static override readonly marker: string = 'agent-ledger.ModelError';
  constructor(
    message: string,
    readonly model: string,
    options?: { cause?: unknown },
  ) {
    super('MODEL_FAILED', message, options);
  }
}
