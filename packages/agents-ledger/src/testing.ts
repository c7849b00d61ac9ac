// @agent-ledger/agents-ledger/testing: for tests only (no package's src imports it). The store under
// a ledger, for a test that checks or damages what is stored the way another program could; the
// ledger's API no longer hands it out, so applications read and write through the ledger.

import type { LedgerStore } from '@agent-ledger/store';
import type { AgentsLedger } from './agents-ledger.ts';
import { storeUnder } from './store-registry.ts';

export function storeOf(ledger: AgentsLedger): LedgerStore {
  return storeUnder(ledger);
}
