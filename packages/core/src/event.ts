// An event of the events ledger: something that arrived from outside (a chat message from a
// channel, an email, a webhook call). Never compacted, never changed.

export interface LedgerEvent {
  id: string;
  /** Where it came from: `discord:#ops`, `slack:C0123`, `email:support`, … */
  channel: string;
  /** The source's own id for it; (channel, externalId) is unique, which makes ingest idempotent. */
  externalId: string;
  author: string | null;
  /** What it is: `message` by default, or `reaction`, `webhook`, … */
  kind: string;
  payload: unknown;
  /** When it happened at the source, ms since the epoch. */
  occurredAt: number;
  /** When the ledger stored it, ms since the epoch. */
  receivedAt: number;
  /** 1, 2, 3, … within the channel, without gaps. */
  seq: number;
  /** Hash of the channel's previous event (null for the first). */
  prevHash: string | null;
  /** SHA-256 over the canonical encoding of this event and `prevHash`. */
  hash: string;
}
