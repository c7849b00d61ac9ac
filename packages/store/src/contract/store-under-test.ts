// What a store engine hands the contract: a way to open a fresh store. Its own module so every
// suite imports it without importing the runner that imports the suites.

import type { LedgerStore } from '../index.ts';

export interface StoreUnderTest {
  /** A fresh, empty, migrated store; the suite closes it. */
  open(): Promise<LedgerStore>;
}
