export type { LedgerSessionOptions } from './ledger-session.ts';
export { LedgerSession } from './ledger-session.ts';
