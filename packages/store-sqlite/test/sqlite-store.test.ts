// The SQLite store runs the store contract on a real file per test.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runStoreContract } from '@agent-ledger/store/contract';
import { afterAll } from 'vitest';
import { openSqliteStore } from '../src/sqlite-store.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'nexus-store-contract-'));
let opened = 0;
afterAll(() => rmSync(directory, { recursive: true, force: true }));

runStoreContract('sqlite', {
  open: async () => {
    opened += 1;
    return openSqliteStore({ path: path.join(directory, `store-${opened}.db`) });
  },
});
