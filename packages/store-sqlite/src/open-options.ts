// How a SQLite store is opened. A module of its own with no driver import, so the package's public
// declarations never reach better-sqlite3's or drizzle's types.

export interface OpenSqliteStoreOptions {
  /** A file path, or ':memory:' (or '') for a throwaway database. */
  path: string;
  /** How long a writer waits for another process's lock before failing, in ms. */
  busyTimeoutMs?: number;
  /**
   * Open without writing anything: no migrations, no WAL switch, no file created beside it, and
   * every write through the store fails. The file must be a ledger already, as new as this code.
   */
  readonly?: boolean;
  /** Refuse with DatabaseNotFoundError when the file is not there, rather than create it. */
  mustExist?: boolean;
  /**
   * Open the ledger to check it (doctor). As with readonly, nothing is written to the file; but the
   * connection may begin a write transaction, because FTS5's integrity-check, which writes nothing,
   * is an INSERT command. A file this process may not write is checked on a private in-memory copy
   * (memory the size of the file). A write through such a store is not prevented: do not make one.
   */
  inspect?: boolean;
  /**
   * With readonly or inspect: a ledger older than this code is first brought up to date (the one
   * write such an opening makes, after the checks of a write) when this process may write it, and
   * refused when it may not. Without it an older ledger is opened as it is, and a read of what a
   * later migration added fails.
   */
  upgrade?: boolean;
  /**
   * Before anything is written to an existing ledger, run PRAGMA quick_check over every page and
   * refuse a damaged one. It reads the whole file: about 80 ms at 10,000 turns (20 MB) and 0.8 s at
   * 100,000 (180 MB), so it is for a process's first write, not for every hook call.
   */
  checkIntegrity?: boolean;
}
