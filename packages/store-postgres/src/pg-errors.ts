// The one place that knows what node-postgres throws. Everything above sees LedgerErrors with
// stable codes: serialization and lock failures are DatabaseBusyError (retry), the rest StorageError.

import { LedgerError, StorageError } from '@agent-ledger/core';
import { DatabaseBusyError } from '@agent-ledger/store';

/** SQLSTATE classes a caller can retry: serialization failure, deadlock, lock not available. */
const RETRYABLE = new Set(['40001', '40P01', '55P03']);

export function fromPostgresError(error: unknown): unknown {
  if (LedgerError.isInstance(error) || !(error instanceof Error)) return error;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) {
    if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|Connection terminated/.test(error.message))
      return new StorageError(`Cannot reach the PostgreSQL server: ${error.message}`, { cause: error });
    return error;
  }
  if (RETRYABLE.has(code))
    return new DatabaseBusyError(`The ledger database is busy (${code}: ${error.message}); retry the operation.`, {
      cause: error,
    });
  if (code === '25006')
    return new StorageError('The ledger database is read-only here; check the role or the server.', { cause: error });
  return new StorageError(`The ledger database refused the operation (${code}): ${error.message}`, { cause: error });
}
