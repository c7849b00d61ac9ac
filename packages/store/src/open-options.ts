// How a ledger store is opened, whatever the engine: a module of its own, so the opener and the
// engine loader both read it without importing each other.

export interface OpenLedgerStoreOptions {
  /**
   * Open without writing anything (no migrations; on SQLite no file is created beside it and a
   * write through the store fails); the ledger must exist.
   */
  readonly?: boolean;
  /** Refuse with DatabaseNotFoundError when there is no ledger there yet, rather than create one. */
  mustExist?: boolean;
  /** SQLite: how long a writer waits for another process's lock before failing, in ms. */
  busyTimeoutMs?: number;
  /**
   * SQLite: open the ledger to check it (doctor): nothing is written to the file, but FTS5's
   * integrity-check (an INSERT that writes nothing) can run; a file this process may not write is
   * checked on an in-memory copy.
   */
  inspect?: boolean;
  /**
   * SQLite, with readonly or inspect: migrate a ledger older than this code first (when this process
   * may write it; it is refused otherwise), rather than open it as it is.
   */
  upgrade?: boolean;
  /**
   * SQLite: before the first write to an existing file, read all of it with PRAGMA quick_check and
   * refuse a damaged ledger (0.8 s at 100,000 turns: for a command's first write, not every hook).
   */
  checkIntegrity?: boolean;
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number;
}
