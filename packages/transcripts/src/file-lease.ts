// One import of a transcript file at a time, across processes: Claude Code runs matching hooks in
// parallel, and a Stop hook's import can overlap the next prompt's catch-up. Each import of a file
// holds the store's lease `import:<path>` while it runs (renewed as it goes, released at the end;
// a crashed holder's lease expires, or is taken over at once when its process on this machine is gone), so concurrent imports of one file are one import after another,
// and the later one finds the earlier one's lines recorded.

import { newLeaseHolder, takeLease } from '@agent-ledger/store';
import type { ImportRecords } from './import-store.ts';

/** How long a lease holds without renewal: a crashed importer blocks the file no longer than this. */
const LEASE_MS = 30_000;
/** Between two tries for a lease another import holds. */
const RETRY_MS = 40;

/** What an import that could not get the file's lease in time says about it. */
export class FileBusyError extends Error {
  constructor(
    readonly path: string,
    waitedMs: number,
  ) {
    super(`another import of this file was still running after ${Math.round(waitedMs / 1000)} s; it was left to that one`);
  }
}

/** Runs `work` holding the file's import lease; waits up to `waitMs` for it, then throws FileBusyError. */
export async function withFileLease<T>(
  records: ImportRecords,
  path: string,
  options: { waitMs: number; now?: () => number },
  work: () => Promise<T>,
): Promise<T> {
  const now = options.now ?? Date.now;
  const name = `import:${path}`;
  const holder = newLeaseHolder();
  const take = () => takeLease(records, { name, holder, now: now(), expiresAt: now() + LEASE_MS });
  const deadline = now() + options.waitMs;
  while (!(await take())) {
    if (now() >= deadline) throw new FileBusyError(path, options.waitMs);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS + Math.random() * RETRY_MS));
  }
  const renewal = setInterval(() => void take().catch(() => undefined), LEASE_MS / 3);
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    await records.releaseLease({ name, holder }).catch(() => undefined);
  }
}
