// How a SQLite store is opened. A module of its own with no driver import, so the package's public
// declarations never reach better-sqlite3's or drizzle's types.

export interface OpenSqliteStoreOptions {
  /** A file path, or ':memory:' for a throwaway database. */
  path: string;
  /** How long a writer waits for another process's lock before failing, in ms. */
  busyTimeoutMs?: number;
  /** Open without writing anything: no migrations, no WAL switch (the file must exist). */
  readonly?: boolean;
  /** Refuse with DatabaseNotFoundError when the file is not there, rather than create it. */
  mustExist?: boolean;
}
