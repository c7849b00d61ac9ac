// One compactor per session, across processes and machines sharing one ledger: a compaction holds the
// store's lease `compact:<sessionId>` while it summarizes and writes (renewed as it goes, released at
// the end; a crashed holder's lease expires, or is taken over at once when its process on this
// machine is gone: @agent-ledger/store's takeLease). Another process that wants to compact the same session
// meanwhile waits, and takes the holder's compaction as its own once it lands instead of calling its
// summarizer again: the compare-and-set on the head would have let only one of the two land anyway,
// and the other's model call was money spent for nothing.
//
// Leases run on the wall clock (Date.now), not the ledger's `now`: they coordinate processes, whose
// injected clocks need not agree.

import { newLeaseHolder, type StoreOperations, takeLease } from '@agent-ledger/store';

/** How long a lease holds without renewal (a crashed compactor blocks the session no longer than this). */
export const DEFAULT_COMPACTION_LEASE_MS = 60_000;
/** Between two looks at a session another process is compacting. */
const RETRY_MS = 100;

export interface CompactionLeaseOptions<Landed> {
  leaseMs?: number;
  /** Asked while another process holds the lease: that process's compaction, once it has landed. */
  landed: () => Promise<Landed | null>;
}

/**
 * Runs `work` holding the session's compaction lease, or returns what `landed` found once another
 * holder's compaction is there. Waits as long as another holder renews its lease.
 */
export async function withCompactionLease<T, Landed>(
  store: Pick<StoreOperations, 'acquireLease' | 'leaseHolder' | 'releaseLease'>,
  sessionId: string,
  options: CompactionLeaseOptions<Landed>,
  work: () => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false; landed: Landed }> {
  const leaseMs = options.leaseMs ?? DEFAULT_COMPACTION_LEASE_MS;
  const name = `compact:${sessionId}`;
  const holder = newLeaseHolder();
  const take = () => takeLease(store, { name, holder, now: Date.now(), expiresAt: Date.now() + leaseMs });
  while (!(await take())) {
    const landed = await options.landed();
    if (landed !== null) return { ran: false, landed };
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS + Math.random() * RETRY_MS));
  }
  const renewal = setInterval(() => void take().catch(() => undefined), leaseMs / 3);
  renewal.unref();
  try {
    return { ran: true, value: await work() };
  } finally {
    clearInterval(renewal);
    await store.releaseLease({ name, holder }).catch(() => undefined);
  }
}
