// @agent-ledger/store-sqlite: the embedded engine behind LedgerStore (docs/store.md): one SQLite file
// through better-sqlite3, WAL, FTS5 search, the schema's migrations applied on open. The ledgers
// reach it through openLedgerStore('./ledger.db'); open it directly to pass options of its own.

export type { OpenSqliteStoreOptions } from './open-options.ts';
export { openSqliteStore } from './sqlite-store.ts';
