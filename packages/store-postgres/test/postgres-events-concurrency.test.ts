// Events on PostgreSQL under appenders in several processes (each with its own pool): every
// channel's chain stays gapless with each prevHash the hash before it, every key is stored once
// whoever delivered it, and no tail is sealed twice (the seals of all processes add up to the
// events stored). Skipped where no PostgreSQL server runs (see postgres/global-setup.ts).

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.ts';
import { freshPostgresDatabase } from './postgres/fresh-database.ts';

const server = inject('postgresUrl');
const run = promisify(execFile);
const APPENDER = fileURLToPath(new URL('./postgres/event-appender-process.ts', import.meta.url));

describe.skipIf(!server)('events on PostgreSQL: appenders in several processes', () => {
  it('4 processes appending to shared channels: gapless chains, each key once, no tail sealed twice', async () => {
    const url = await freshPostgresDatabase(server as string, 'events_concurrency');
    // Migrate once before the processes start (they would wait on the migration lock otherwise).
    const store = openPostgresStore(url);
    try {
      expect(await store.eventChannels()).toEqual([]);
      const processes = ['p1', 'p2', 'p3', 'p4'];
      const batches = 150;
      const outputs = await Promise.all(
        processes.map((name) => run(process.execPath, ['--import', 'tsx', APPENDER, url, name, String(batches)])),
      );
      const seals = outputs.reduce((sum, { stdout }) => sum + (JSON.parse(stdout.trim()) as { seals: number }).seals, 0);

      const busy = await store.eventPage({ channel: 'busy', limit: 100_000 });
      const quiet = await store.eventPage({ channel: 'quiet', limit: 100_000 });
      for (const chain of [busy, quiet]) {
        expect(chain.map((record) => record.seq)).toEqual(chain.map((_, index) => index + 1));
        chain.forEach((record, index) => {
          expect(record.prevHash).toBe(index === 0 ? null : chain[index - 1]?.hash);
        });
      }
      // Each process's own keys, and each shared key once (whichever process stored it).
      expect(busy.length).toBe(processes.length * batches + batches / 2);
      expect(quiet.length).toBe(batches / 2);
      expect(new Set(busy.map((record) => record.externalId)).size).toBe(busy.length);
      expect(seals).toBe(busy.length + quiet.length);
    } finally {
      await store.close();
    }
  });
});
