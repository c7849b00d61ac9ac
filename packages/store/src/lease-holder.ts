// Who holds a lease, and whether that holder can still be working. A lease names its holder
// `<host>/<pid>/<random id>`, so when the holder's process was killed (SIGKILL, an OOM kill, a power-
// cut laptop) another process on the same machine sees at once that the pid is gone and takes the
// lease over, instead of waiting out the expiry (a minute for a compaction): a Claude Code hook or a
// writer restarted after a crash should not stall behind its own dead predecessor. A holder on
// another machine, or whose pid answers, is waited for as before. A pid reused by an unrelated
// process only makes the asker wait for the expiry, which is the safe side.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { LeaseStore } from './lease-store.ts';

/** A holder id for this process: unique per attempt, and naming the process that holds it. */
export function newLeaseHolder(): string {
  return `${hostname()}/${process.pid}/${randomUUID()}`;
}

/** True when `holder` names a process on this machine that no longer exists. */
export function isLeaseHolderGone(holder: string): boolean {
  const [host, pidText, attempt] = holder.split('/');
  if (host !== hostname() || attempt === undefined || !/^\d+$/.test(pidText ?? '')) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return false;
  try {
    // Signal 0 delivers nothing: it only asks whether the process exists.
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: it exists but belongs to another user, so it may be working.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * One try at a lease: taken when free, expired or already ours; when refused, taken over from a
 * holder whose process is gone. True when `holder` holds it afterwards.
 */
export async function takeLease(
  store: Pick<LeaseStore, 'acquireLease' | 'leaseHolder'>,
  request: { name: string; holder: string; now: number; expiresAt: number },
): Promise<boolean> {
  if (await store.acquireLease(request)) return true;
  const current = await store.leaseHolder(request.name);
  if (current === null) return store.acquireLease(request);
  if (!isLeaseHolderGone(current)) return false;
  return store.acquireLease({ ...request, replacing: current });
}
