// The store contract: what every engine behind LedgerStore must do, as one suite an engine runs by
// handing it a way to open a fresh, empty store. Each area of the store has its own part.

import { describe } from 'vitest';
import { copyContract } from './copy-contract.ts';
import { embeddingContract } from './embedding-contract.ts';
import { eventContract } from './event-contract.ts';
import { forestContract } from './forest-contract.ts';
import { importContract } from './import-contract.ts';
import { leaseContract } from './lease-contract.ts';
import { maintenanceContract } from './maintenance-contract.ts';
import { searchContract } from './search-contract.ts';
import type { StoreUnderTest } from './store-under-test.ts';
import { transactionContract } from './transaction-contract.ts';
import { turnContract } from './turn-contract.ts';

export type { StoreUnderTest } from './store-under-test.ts';

export function runStoreContract(engine: string, subject: StoreUnderTest): void {
  describe(`store contract: ${engine}`, () => {
    transactionContract(subject);
    turnContract(subject);
    eventContract(subject);
    searchContract(subject);
    embeddingContract(subject);
    forestContract(subject);
    importContract(subject);
    leaseContract(subject);
    maintenanceContract(subject);
    copyContract(subject);
  });
}
