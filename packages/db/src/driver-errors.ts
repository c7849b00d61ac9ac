// The one place that knows what the SQLite driver throws. Everything above the db package sees
// LedgerErrors with stable codes, never a raw driver error.

import { type MatchPlan, SearchSyntaxError, StorageError } from '@nexus/core';

export class DatabaseBusyError extends StorageError {
  override readonly code = 'DATABASE_BUSY';
}

/** Returns a StorageError for a driver error; anything else is returned unchanged. */
export function fromDriverError(error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== 'SqliteError') return error;
  const code = (error as Error & { code?: string }).code ?? 'SQLITE_ERROR';
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, …) are the same condition.
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
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

/** Runs a search; for an advanced (FTS5 syntax) query, an error from SQLite is the query's fault. */
export function withSearchErrors<T>(plan: MatchPlan, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (plan.advanced && error instanceof Error && error.name === 'SqliteError')
      throw new SearchSyntaxError(plan.query, error.message);
    throw fromDriverError(error);
  }
}
