// Checks an incoming event before anything is written, with limits a person can read in the docs
// (docs/events.md): a bad event is refused whole, with the field named. Every string of it must be
// text both engines store as sent (@agent-ledger/core's assertStorableText), since the hash is
// taken before the write and verify recomputes it from what was stored.

import { assertStorableText, canonicalJson, InvalidInputError, PayloadTooLargeError } from '@agent-ledger/core';

/** Largest payload, as canonical JSON in UTF-8. Bodies beyond this belong in a blob store. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;
/** Longest channel, external id, author or kind. */
export const MAX_FIELD_LENGTH = 256;

export interface AppendEventInput {
  channel: string;
  externalId: string;
  author?: string | null;
  /** `message` when not given. */
  kind?: string;
  /** Any JSON value. */
  payload: unknown;
  /** When it happened at the source: ms since the epoch or an ISO 8601 string; the ledger's clock when not given. */
  occurredAt?: number | string;
}

export interface ValidatedEvent {
  channel: string;
  externalId: string;
  author: string | null;
  kind: string;
  payload: string;
  occurredAt: number | null;
}

export function validateEventInput(input: unknown): ValidatedEvent {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidInputError('an event must be a JSON object with channel, externalId and payload.');
  }
  const record = input as Record<string, unknown>;
  const channel = requiredText(record.channel, 'channel');
  const externalId = requiredText(record.externalId, 'externalId');
  const kind = record.kind === undefined ? 'message' : requiredText(record.kind, 'kind');
  const author = record.author === undefined || record.author === null ? null : requiredText(record.author, 'author');
  if (!('payload' in record) || record.payload === undefined) throw new InvalidInputError('payload is missing.', 'payload');
  const payload = canonicalJson(record.payload);
  // JSON.stringify writes a NUL or a lone surrogate only as a \u escape, so a payload whose
  // canonical text has no "\u" holds neither and needs no walk; one that has is walked to name the place.
  if (payload.includes('\\u')) assertStorableText(record.payload, 'payload');
  const bytes = Buffer.byteLength(payload, 'utf8');
  if (bytes > MAX_PAYLOAD_BYTES) throw new PayloadTooLargeError(bytes, MAX_PAYLOAD_BYTES);
  return { channel, externalId, author, kind, payload, occurredAt: occurredAtOf(record.occurredAt) };
}

function requiredText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidInputError(`${field} must be a non-empty string, got ${JSON.stringify(value)}.`, field);
  }
  if (value.length > MAX_FIELD_LENGTH) {
    throw new InvalidInputError(`${field} is ${value.length} characters long; the limit is ${MAX_FIELD_LENGTH}.`, field);
  }
  assertStorableText(value, field);
  return value;
}

function occurredAtOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  const time = typeof value === 'string' ? Date.parse(value) : value;
  if (typeof time !== 'number' || !Number.isSafeInteger(time) || time < 0) {
    throw new InvalidInputError(
      `occurredAt must be ms since the epoch or an ISO 8601 time, got ${JSON.stringify(value)}.`,
      'occurredAt',
    );
  }
  return time;
}
