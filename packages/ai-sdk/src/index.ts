export type { LedgerMiddleware, LedgerMiddlewareNotice, LedgerMiddlewareOptions } from './middleware.ts';
export { ledgerMiddleware } from './middleware.ts';
export type { HistoryMode } from './record-prompt.ts';
