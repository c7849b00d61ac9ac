// Real child processes on one SQLite file: a writer killed with SIGKILL in the middle of an ingest,
// and two writers appending to one channel at the same time. The children are TypeScript scripts in
// ./fixtures, run with `node --import tsx` (as the CLI runs its sources).

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type EventsLedger, openEventsLedger } from '../src/index.ts';
import { countEvents, makeTempDir, withRawSqlite } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const TOTAL = 100_000;
const BATCH = 1000;

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Child {
  process: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  /** Resolves with how the child ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  onLine(listener: (line: string) => void): void;
}

function startChild(script: string, args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(FIXTURES, script), ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const reader = createInterface({ input: child.stdout });
  reader.on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener(line);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close' fires after stdout is drained, so every line written before the end has been read.
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { process: child, lines, stderr: () => stderr, exited, onLine: (listener) => listeners.push(listener) };
}

function openTemp(): { file: string; open(): EventsLedger } {
  const dir = makeTempDir();
  const opened: EventsLedger[] = [];
  cleanups.push(async () => {
    for (const ledger of opened) {
      try {
        await ledger.close();
      } catch {
        // already closed
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const file = path.join(dir, 'events.db');
  return {
    file,
    open() {
      const ledger = openEventsLedger(file);
      opened.push(ledger);
      return ledger;
    },
  };
}

function channelStats(ledger: EventsLedger, channel: string): { count: number; maxSeq: number; distinctSeqs: number } {
  return withRawSqlite(
    ledger,
    (sqlite) =>
      sqlite
        .prepare(
          'SELECT count(*) AS count, coalesce(max(seq), 0) AS maxSeq, count(DISTINCT seq) AS distinctSeqs FROM events WHERE channel = ?',
        )
        .get(channel) as { count: number; maxSeq: number; distinctSeqs: number },
  );
}

/** SHA-256 over every stored column of the channel's events up to `throughSeq`, in seq order. */
function digest(ledger: EventsLedger, channel: string, throughSeq: number): string {
  const hash = createHash('sha256');
  withRawSqlite(ledger, (sqlite) => {
    const rows = sqlite
      .prepare('SELECT * FROM events WHERE channel = ? AND seq <= ? ORDER BY seq')
      .iterate(channel, throughSeq) as Iterable<Record<string, unknown>>;
    for (const row of rows) hash.update(JSON.stringify(row));
  });
  return hash.digest('hex');
}

describe('a writer killed with SIGKILL in the middle of an ingest', () => {
  it('loses no reported batch, leaves a gapless verified chain, and a re-run stores exactly the rest', async () => {
    const temp = openTemp();
    // Create the file and its schema first, so the child does not race the parent's checks.
    await temp.open().close();

    const killAfter = 2 + Math.floor(Math.random() * 19); // batches reported before the kill: 2..20
    const delayMs = Math.floor(Math.random() * 25); // then a little longer, to land mid-batch
    const about = `killAfter=${killAfter} delayMs=${delayMs}`;
    const first = startChild('ingest-child.ts', [temp.file, String(TOTAL), String(BATCH)]);
    let killScheduled = false;
    first.onLine(() => {
      if (!killScheduled && first.lines.length >= killAfter) {
        killScheduled = true;
        setTimeout(() => first.process.kill('SIGKILL'), delayMs);
      }
    });
    const ending = await first.exited;
    expect(ending.signal, `${about}\n${first.stderr()}`).toBe('SIGKILL');
    const reported = Math.max(...first.lines.map(Number));
    expect(
      first.lines.every((line) => /^\d+$/.test(line)),
      about,
    ).toBe(true);
    expect(reported, about).toBeGreaterThanOrEqual(killAfter * BATCH);

    let ledger = temp.open();
    const afterCrash = channelStats(ledger, 'crash');
    // Every batch the child reported is there; batches are whole; nothing is duplicated or skipped.
    expect(afterCrash.count, about).toBeGreaterThanOrEqual(reported);
    expect(afterCrash.count, about).toBeLessThan(TOTAL);
    expect(afterCrash.count % BATCH, about).toBe(0);
    expect(afterCrash.maxSeq, about).toBe(afterCrash.count);
    expect(afterCrash.distinctSeqs, about).toBe(afterCrash.count);
    const misplaced = withRawSqlite(
      ledger,
      (sqlite) =>
        sqlite.prepare("SELECT count(*) AS n FROM events WHERE channel = 'crash' AND external_id <> 'e' || (seq - 1)").get() as {
          n: number;
        },
    );
    expect(misplaced.n, about).toBe(0);
    expect(await ledger.verify(), about).toEqual({ ok: true, checked: afterCrash.count, channels: 1 });
    const storedDigest = digest(ledger, 'crash', afterCrash.count);
    await ledger.close();

    const second = startChild('ingest-child.ts', [temp.file, String(TOTAL), String(BATCH)]);
    const secondEnding = await second.exited;
    expect(secondEnding, `${about}\n${second.stderr()}`).toEqual({ code: 0, signal: null });
    const summary = JSON.parse(second.lines.at(-1) ?? 'null') as { done: boolean; appended: number; duplicateRanges: number[][] };
    expect(summary.done).toBe(true);
    // Duplicates are exactly the events stored before the crash: indices 0 .. count-1.
    expect(summary.duplicateRanges, about).toEqual([[0, afterCrash.count]]);
    expect(summary.appended, about).toBe(TOTAL - afterCrash.count);

    ledger = temp.open();
    const final = channelStats(ledger, 'crash');
    expect(final).toEqual({ count: TOTAL, maxSeq: TOTAL, distinctSeqs: TOTAL });
    expect(countEvents(ledger)).toBe(TOTAL);
    expect(digest(ledger, 'crash', afterCrash.count), 'the events stored before the crash are unchanged').toBe(storedDigest);
    expect(await ledger.verify()).toEqual({ ok: true, checked: TOTAL, channels: 1 });
    const sample = await ledger.list({ channel: 'crash', afterSeq: afterCrash.count, limit: 1 });
    expect(sample.events[0]).toMatchObject({
      seq: afterCrash.count + 1,
      externalId: `e${afterCrash.count}`,
      payload: { index: afterCrash.count, text: `event number ${afterCrash.count}` },
    });
  }, 90_000);
});

describe('two processes appending to one channel at the same time', () => {
  // On a loaded machine one writer can finish before the other starts; then the run proves nothing
  // about concurrency, the interleaving check below fails, and the test runs again.
  it('3,000 events one by one from two writers: seqs 1..3000 unique and gapless, verify ok, nothing lost', {
    timeout: 60_000,
    retry: 2,
  }, async () => {
    const temp = openTemp();
    await temp.open().close();
    const perChild = 1500;
    const children = ['left', 'right'].map((prefix) => ({
      prefix,
      child: startChild('append-child.ts', [temp.file, prefix, String(perChild)]),
    }));
    // Both open the file and say ready; then closing their stdin starts both together.
    await Promise.all(
      children.map(
        ({ child }) =>
          new Promise<void>((resolve, reject) => {
            if (child.lines.includes('ready')) resolve();
            child.onLine((line) => line === 'ready' && resolve());
            child.exited.then(() => reject(new Error(`child ended before ready:\n${child.stderr()}`)));
          }),
      ),
    );
    for (const { child } of children) child.process.stdin.end();
    const endings = await Promise.all(children.map(({ child }) => child.exited));
    endings.forEach((ending, index) => {
      expect(ending, children[index]?.child.stderr()).toEqual({ code: 0, signal: null });
    });

    const ledger = temp.open();
    expect(channelStats(ledger, 'shared')).toEqual({ count: 2 * perChild, maxSeq: 2 * perChild, distinctSeqs: 2 * perChild });
    expect(await ledger.verify()).toEqual({ ok: true, checked: 2 * perChild, channels: 1 });

    const allSeqs: number[] = [];
    for (const { prefix, child } of children) {
      const written = JSON.parse(child.lines.at(-1) ?? '[]') as { id: string; seq: number }[];
      expect(written).toHaveLength(perChild);
      // Each writer's own events got increasing seqs, in the order it appended them.
      expect(written.every((each, index) => index === 0 || each.seq > (written[index - 1]?.seq ?? 0))).toBe(true);
      const stored = withRawSqlite(
        ledger,
        (sqlite) =>
          sqlite
            .prepare(
              'SELECT id, seq, external_id AS externalId FROM events WHERE channel = ? AND external_id LIKE ? ORDER BY seq',
            )
            .all('shared', `${prefix}-%`) as { id: string; seq: number; externalId: string }[],
      );
      expect(stored.map(({ id, seq }) => ({ id, seq }))).toEqual(written);
      expect(stored.map((row) => row.externalId)).toEqual(written.map((_, index) => `${prefix}-${index}`));
      allSeqs.push(...written.map((each) => each.seq));
    }
    // The writers really did take turns on the channel (otherwise this test would prove little).
    const leftSeqs = allSeqs.slice(0, perChild);
    expect(leftSeqs.some((seq, index) => index > 0 && seq !== (leftSeqs[index - 1] ?? 0) + 1)).toBe(true);
    expect(allSeqs.sort((left, right) => left - right)).toEqual(Array.from({ length: 2 * perChild }, (_, index) => index + 1));
  });
});
