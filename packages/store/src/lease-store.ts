// Leases: one holder at a time for a named piece of work, across processes and across machines
// sharing one ledger (an import of one transcript file; later, a compaction of one session). A lease
// is taken when it is free or expired, so a holder that crashed never blocks the work for longer
// than its lease; the holder renews it (acquires again) while it works, and releases it when done.

export interface LeaseRequest {
  /** What the lease is for: `import:/path/to/file.jsonl`. */
  name: string;
  /** Who asks: unique per process and attempt (a random id). */
  holder: string;
  /** The clock of the asker, epoch milliseconds: the lease is free when its expiry is at or before this. */
  now: number;
  /** Until when the lease is held if taken, epoch milliseconds. */
  expiresAt: number;
  /**
   * Also take it, expired or not, while this holder still holds it: a holder whose process is known
   * to be gone (lease-holder.ts). A compare-and-set: of two askers replacing one holder, one gets it.
   */
  replacing?: string;
}

export interface LeaseStore {
  /**
   * Takes the lease when nobody holds it, when it expired, or when `holder` holds it already (then
   * its expiry moves); true when `holder` holds it afterwards. Atomic: of two askers, one gets it.
   */
  acquireLease(request: LeaseRequest): Promise<boolean>;
  /** Who holds the lease, expired or not; null when nobody does. */
  leaseHolder(name: string): Promise<string | null>;
  /** Gives the lease up when `holder` holds it; does nothing otherwise (it expired and was taken). */
  releaseLease(lease: { name: string; holder: string }): Promise<void>;
}
