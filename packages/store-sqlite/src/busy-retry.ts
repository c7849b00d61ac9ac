// Opening a new ledger while other processes open it too (hooks run in parallel): SQLite answers
// some lock conflicts with SQLITE_BUSY at once instead of waiting out busy_timeout: a transaction
// whose read snapshot another writer has since committed over (SQLITE_BUSY_SNAPSHOT), or a lock
// upgrade that could deadlock. The other opener is mid-migration and done within milliseconds, so
// such a step is run again after a short pause; anything else is thrown at once.

import { isBusyDriverError } from './driver-errors.ts';

const DEFAULT_ATTEMPTS = 40;
const DEFAULT_PAUSE_MS = 25;

/** Blocks this thread for `milliseconds`: opening a store is synchronous, so the pause is too. */
function pause(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/** `work`, run again after a pause of about `pauseMs` while SQLite answers busy, at most `attempts` times. */
export function retryWhileBusy<T>(work: () => T, { attempts = DEFAULT_ATTEMPTS, pauseMs = DEFAULT_PAUSE_MS } = {}): T {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return work();
    } catch (error) {
      if (!isBusyDriverError(error) || attempt >= attempts) throw error;
      // Spread out, so two openers that collided do not collide again on the same beat.
      pause(pauseMs * (0.5 + Math.random()));
    }
  }
}
