// @agent-ledger/store/contract: what every engine behind LedgerStore must do, as one vitest suite an
// engine runs by handing it a way to open a fresh, empty store (both built-in engines run it with no
// skips; an engine of your own proves itself the same way). Also the row builders its cases use,
// for an engine's own tests. In an engine's test file, with runStoreContract imported from this entry:
//
//   runStoreContract('my-engine', { open: async () => openMyStore(freshLocation()) });

export { appendRows, clusterRecord, sessionRecord, sessionWithTurns, turnRecord } from './ledger-rows.ts';
export type { StoreUnderTest } from './run-store-contract.ts';
export { runStoreContract } from './run-store-contract.ts';
