// Events: what arrived from outside, append-only, one hash chain per channel. The store offers
// exactly one write, `appendEvents`, and reads; there is no operation that changes or removes an
// event, on any engine.

/** A stored event, engine-neutral. */
export interface EventRecord {
  id: string;
  channel: string;
  /** The source's id of the event; unique per channel (re-delivery is recognised by it). */
  externalId: string;
  author: string | null;
  kind: string;
  /** Canonical JSON text: exactly the bytes the hash covers (an engine stores it as text, not as a JSON type). */
  payload: string;
  occurredAt: number;
  receivedAt: number;
  /** 1, 2, 3, … within the channel, without gaps. */
  seq: number;
  /** The hash of the channel's previous event; null for its first. */
  prevHash: string | null;
  hash: string;
  /** What full-text search indexes (derived from the event, outside the hash). */
  searchText: string | null;
}

/** Where a channel's chain ends: its newest event's seq and hash. */
export interface EventTail {
  seq: number;
  hash: string;
}

/** What identifies an event before it is stored. */
export interface EventKey {
  channel: string;
  externalId: string;
}

export interface AppendEvents {
  /** The events of the batch, in order; the store only needs their keys. */
  events: readonly EventKey[];
  /**
   * Builds the record of `events[index]` on its channel's tail (null for an empty channel): seq is
   * tail.seq + 1, prevHash tail.hash. Called only for events not stored yet, in order, inside the
   * write: it must be pure (no I/O), since on a pooled engine the channel is locked while it runs.
   * The store refuses (and writes nothing of the batch) a record that does not continue the tail or
   * does not carry the event's key.
   */
  seal(index: number, tail: EventTail | null): EventRecord;
}

/** One event of an append, in the order given: the stored record, and whether it was there before. */
export interface AppendedEventRecord {
  record: EventRecord;
  /** True when the (channel, externalId) was already stored (earlier, or earlier in this batch). */
  duplicate: boolean;
}

/** A page of one channel, oldest first. */
export interface EventPageQuery {
  channel: string;
  /** Only events with seq > afterSeq (the cursor: the last seq of the previous page). */
  afterSeq?: number;
  /** Inclusive seq bounds. */
  fromSeq?: number;
  toSeq?: number;
  /** Inclusive occurredAt bounds, ms since the epoch. */
  since?: number;
  until?: number;
  limit: number;
}

export interface EventStore {
  /**
   * The one write. Atomically, for the whole batch: each (channel, externalId) already stored comes
   * back as it is stored (a duplicate, nothing written); every other event is sealed on its
   * channel's tail and inserted. All of the batch is written, or none of it (a failing seal or
   * insert leaves nothing).
   *
   * Concurrent appenders on one channel never see the same tail: SQLite runs the operation in one
   * IMMEDIATE transaction (the file's write lock; a savepoint inside `store.transaction`); a pooled
   * engine locks each channel of the batch (in name order, so two batches cannot deadlock) for
   * the length of its transaction before reading the tails, with UNIQUE (channel, seq) and
   * (channel, externalId) as the backstop: a unique violation means the operation lost a race and
   * is retried whole (the seal is pure, so re-sealing is safe).
   */
  appendEvents(append: AppendEvents): Promise<AppendedEventRecord[]>;
  getEvent(eventId: string): Promise<EventRecord | undefined>;
  /** One page of a channel in seq order: what list, range and the verify walk read. */
  eventPage(query: EventPageQuery): Promise<EventRecord[]>;
  /** The event at a channel's seq (what a checkpoint anchors). */
  eventAtSeq(channel: string, seq: number): Promise<EventRecord | undefined>;
  /** A channel's newest seq and hash; undefined for a channel with no events. */
  channelTail(channel: string): Promise<EventTail | undefined>;
  /** Every channel holding an event, in name order (binary: the bytes of their UTF-8 text). */
  eventChannels(): Promise<string[]>;
  /** Null when the event search index agrees with the events; otherwise what the engine reported. */
  checkEventSearchIndex(): Promise<string | null>;
}
