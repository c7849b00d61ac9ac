// The one place that knows what the SQLite driver throws. Everything above the db package sees
// LedgerErrors with stable codes, never a raw driver error.

import { StorageError } from '@agent-ledger/core';
import { DatabaseBusyError } from '@agent-ledger/store';

/** True for SQLite's "locked by another connection", whatever the extended code. */
export function isBusyDriverError(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'SqliteError') return false;
  const code = (error as Error & { code?: string }).code ?? '';
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, …) are the same condition.
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/** Returns a StorageError for a driver error; anything else is returned unchanged. */
export function fromDriverError(error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== 'SqliteError') return error;
  const code = (error as Error & { code?: string }).code ?? 'SQLITE_ERROR';
  if (isBusyDriverError(error)) {
    return new DatabaseBusyError(
      'The ledger database is locked by another writer and stayed locked past busy_timeout; retry the operation.',
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new StorageError('The ledger database is read-only here; check the file permissions.', { cause: error });
  }
  return new StorageError(`The ledger database refused the operation (${code}): ${error.message}`, { cause: error });
}
