export type { AppendedEvent } from './append-events.ts';
export { canonicalJson, MAX_PAYLOAD_DEPTH } from './canonical-json.ts';
export { eventHash } from './event-hash.ts';
export type { EventsLedger, EventsLedgerOptions } from './events-ledger.ts';
export { createEventsLedger, openEventsLedger } from './events-ledger.ts';
export type { EventPage, RangeOptions } from './read-events.ts';
export type { AppendEventInput } from './validate-event.ts';
export { MAX_FIELD_LENGTH, MAX_PAYLOAD_BYTES, validateEventInput } from './validate-event.ts';
export type { BrokenLink, VerifyResult } from './verify-chain.ts';
