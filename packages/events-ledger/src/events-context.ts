// What every events-ledger module works with: the store (the only way to read and write), the
// clock and the id generator. Modules take this, never a driver handle.

import type { IdGenerator } from '@agent-ledger/core';
import type { LedgerStore } from '@agent-ledger/store';

export interface EventsContext {
  store: LedgerStore;
  now: () => number;
  generateId: IdGenerator;
}
