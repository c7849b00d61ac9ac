// The store contract: what every engine behind LedgerStore must do, as one suite an engine runs by
// handing it a way to open a fresh, empty store. Each area of the store has its own part.

import { describe } from 'vitest';
import type { LedgerStore } from '../src/index.ts';
import { copyContract } from './contract/copy-contract.ts';
import { eventContract } from './contract/event-contract.ts';
import { forestContract } from './contract/forest-contract.ts';
import { importContract } from './contract/import-contract.ts';
import { maintenanceContract } from './contract/maintenance-contract.ts';
import { searchContract } from './contract/search-contract.ts';
import { transactionContract } from './contract/transaction-contract.ts';
import { turnContract } from './contract/turn-contract.ts';

export interface StoreUnderTest {
  /** A fresh, empty, migrated store; the suite closes it. */
  open(): Promise<LedgerStore>;
}

export function runStoreContract(engine: string, subject: StoreUnderTest): void {
  describe(`store contract: ${engine}`, () => {
    transactionContract(subject);
    turnContract(subject);
    eventContract(subject);
    searchContract(subject);
    forestContract(subject);
    importContract(subject);
    maintenanceContract(subject);
    copyContract(subject);
  });
}
