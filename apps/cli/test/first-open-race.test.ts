// Hooks run in parallel, so the first prompt of a new project can open a ledger file that does not
// exist yet from several processes at once: each must create or migrate it without failing on the
// tables another just made. Before migrations retried a lost race, about 1 of 50 such processes
// exited with "Cannot prepare the ledger database … CREATE TABLE `agent_sessions`".

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

const PROCESSES = 8;
const ROUNDS = 10;

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => {
  temp = tempFolder();
});
afterEach(() => temp.cleanup());

async function createAtOnce(database: string): Promise<Array<{ code: number; stderr: string }>> {
  const children = Array.from({ length: PROCESSES }, (_, index) =>
    spawn(process.execPath, [BUILT_CLI, 'session', 'create', '--label', `racer ${index}`, '--db', database], {
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  return Promise.all(
    children.map(async (child) => {
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const [code] = (await once(child, 'close')) as [number];
      return { code, stderr };
    }),
  );
}

it(`${PROCESSES} processes creating a session in one new SQLite file at once all succeed, ${ROUNDS} times`, {
  timeout: 120_000,
}, async () => {
  for (let round = 0; round < ROUNDS; round += 1) {
    const database = path.join(temp.folder, `new-${round}.db`);
    const results = await createAtOnce(database);
    expect(results.filter((result) => result.code !== 0)).toEqual([]);
    const ledger = openAgentsLedger(database, { mustExist: true });
    try {
      const labels = (await ledger.listSessions({ limit: 100, offset: 0 })).map((session) => session.label).sort();
      expect(labels).toEqual(Array.from({ length: PROCESSES }, (_, index) => `racer ${index}`).sort());
      expect(await ledger.doctor()).toEqual([]);
    } finally {
      await ledger.close();
    }
  }
});
