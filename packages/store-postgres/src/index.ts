// @agent-ledger/store-postgres: the shared engine behind LedgerStore (docs/store.md): a pool of
// node-postgres connections, tsvector search, the schema's migrations applied once under an
// advisory lock. The ledgers reach it through openLedgerStore('postgres://…').

export type { OpenPostgresStoreOptions } from './postgres-store.ts';
export { openPostgresStore } from './postgres-store.ts';
