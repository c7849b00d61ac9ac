// The session row and head turn this process last wrote, per session, so the next append plans
// without reading them again. Never trusted for correctness: the store's compare-and-set refuses a
// plan made on a head that moved (another process appended, a compaction landed), and the append
// then plans again from what is stored.

import type { SessionRecord, TurnRecord } from '@agent-ledger/store';

export interface KnownHead {
  session: SessionRecord;
  head: TurnRecord | null;
}

/** Sessions remembered at most; the oldest written is forgotten first. */
const CAPACITY = 1024;

export class HeadCache {
  private readonly known = new Map<string, KnownHead>();

  get(sessionId: string): KnownHead | undefined {
    return this.known.get(sessionId);
  }

  remember(sessionId: string, known: KnownHead): void {
    this.known.delete(sessionId);
    this.known.set(sessionId, known);
    if (this.known.size > CAPACITY) this.known.delete(this.known.keys().next().value as string);
  }

  forget(sessionId: string): void {
    this.known.delete(sessionId);
  }
}
