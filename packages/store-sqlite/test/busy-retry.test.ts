// retryWhileBusy (busy-retry.ts) on a real lock conflict: a second connection whose busy_timeout is
// 0 gets SQLITE_BUSY at once while the first holds the write lock; the step is run again after a
// pause until the lock is free, and given up after its attempts. Anything but busy is thrown at once.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { retryWhileBusy } from '../src/busy-retry.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'nexus-busy-retry-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function lockedPair(name: string): { holder: Database.Database; waiter: Database.Database } {
  const file = path.join(directory, `${name}.db`);
  const holder = new Database(file);
  holder.pragma('journal_mode = WAL');
  holder.exec('CREATE TABLE t (x INTEGER)');
  holder.exec('BEGIN IMMEDIATE');
  return { holder, waiter: new Database(file, { timeout: 0 }) };
}

describe('retryWhileBusy', () => {
  it('runs a step again while SQLite answers busy, until the lock is free', () => {
    const { holder, waiter } = lockedPair('freed');
    let attempts = 0;
    retryWhileBusy(
      () => {
        attempts += 1;
        // The holder lets go after the third refusal (it would, in another process).
        if (attempts === 4) holder.exec('COMMIT');
        waiter.exec('INSERT INTO t VALUES (1)');
      },
      { pauseMs: 1 },
    );
    expect(attempts).toBe(4);
    expect(waiter.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    holder.close();
    waiter.close();
  });

  it('gives up after its attempts with the busy error, and throws anything else at once', () => {
    const { holder, waiter } = lockedPair('held');
    let attempts = 0;
    const busy = () =>
      retryWhileBusy(
        () => {
          attempts += 1;
          waiter.exec('INSERT INTO t VALUES (1)');
        },
        { attempts: 3, pauseMs: 1 },
      );
    expect(busy).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    expect(attempts).toBe(3);
    attempts = 0;
    const broken = () =>
      retryWhileBusy(() => {
        attempts += 1;
        waiter.exec('INSERT INTO missing_table VALUES (1)');
      });
    expect(broken).toThrow(/no such table/);
    expect(attempts).toBe(1);
    holder.exec('COMMIT');
    holder.close();
    waiter.close();
  });
});
