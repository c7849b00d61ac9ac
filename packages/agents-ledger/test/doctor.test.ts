// doctor() on real SQLite files: silent on a healthy ledger (compactions, forks of every kind),
// loud when the search index drifts from the turns, and silent again after a writer is killed with
// SIGKILL in the middle of its batches and compactions.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Turn } from '@agent-ledger/core';
import { openRawSqlite, type RawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { scan } from '../src/doctor.ts';
import { type AgentsLedger, openAgentsLedger } from '../src/index.ts';
import {
  appendConversation,
  newSession,
  openTempLedger,
  SMALL_SETTINGS,
  sessionHistory,
  type TempLedger,
  userTurn,
} from './builders.ts';
import { crashTurnText } from './fixtures/crash-text.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function temp(options: Parameters<typeof openTempLedger>[0] = {}): TempLedger {
  const opened = openTempLedger(options);
  cleanups.push(() => opened.cleanup());
  return opened;
}

async function compactWhileNeeded(ledger: AgentsLedger, sessionId: string, turns: number, seed: number): Promise<void> {
  for (let index = 0; index < turns; index += 1) {
    await appendConversation(ledger, sessionId, 1, 40, seed + index);
    if (await ledger.shouldCompact(sessionId)) await ledger.compact(sessionId);
  }
}

/** The ledger file as another program sees it: to count rows, or to damage the search index. */
function rawFile(file: string): RawSqlite {
  const sqlite = openRawSqlite(file);
  cleanups.push(() => sqlite.close());
  return sqlite;
}

function turnRow(sqlite: RawSqlite, turnId: string): { rowid: number; search_text: string } {
  return sqlite.prepare('SELECT rowid, search_text FROM agent_turns WHERE id = ?').get(turnId) as {
    rowid: number;
    search_text: string;
  };
}

describe("doctor's scans", () => {
  it('read every row a page at a time, each page after the last row of the one before', async () => {
    const rows = Array.from({ length: 7 }, (_, index) => ({ sessionId: index < 4 ? 's_a' : 's_b', depth: index % 4 }));
    const asked: Array<{ after?: { sessionId: string; depth: number }; limit: number }> = [];
    const read = async (page: { after?: { sessionId: string; depth: number }; limit: number }) => {
      asked.push(page);
      const start = page.after
        ? rows.findIndex((row) => row.sessionId === page.after?.sessionId && row.depth === page.after.depth) + 1
        : 0;
      return rows.slice(start, start + page.limit);
    };
    const seen = [];
    for await (const row of scan(read, 3)) seen.push(row);
    expect(seen).toEqual(rows);
    expect(asked).toEqual([
      { limit: 3 },
      { after: { sessionId: 's_a', depth: 2 }, limit: 3 },
      { after: { sessionId: 's_b', depth: 1 }, limit: 3 },
    ]);
  });
});

describe('doctor on a healthy ledger', () => {
  it('reports nothing for an empty ledger', async () => {
    const { ledger } = temp();
    expect(await ledger.doctor()).toEqual([]);
    await newSession(ledger);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('reports nothing with compactions, forks, full forks, forks of forks and their own compactions', async () => {
    const { ledger, file } = temp();
    const source = await newSession(ledger);
    await compactWhileNeeded(ledger, source.id, 50, 1);
    const history = await sessionHistory(ledger, source.id);
    const compactions = history.filter((turn) => turn.turnType === 'compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    // Fork at a summarized turn, at a compaction, at a recent turn, and a full fork.
    const forkPoints = [history[3] as Turn, compactions[0] as Turn, history.at(-2) as Turn];
    const forks = [];
    for (const point of forkPoints) forks.push((await ledger.forkFrom(point.id)).session.id);
    forks.push((await ledger.forkFrom((history[20] as Turn).id, { full: true })).session.id);
    for (const [index, forkId] of forks.entries()) await compactWhileNeeded(ledger, forkId, 25, 100 * (index + 1));
    const nested = await ledger.forkFrom((await ledger.getSession(forks[0] as string)).headTurnId as string);
    await compactWhileNeeded(ledger, nested.session.id, 25, 900);
    // The source goes on after being forked.
    await compactWhileNeeded(ledger, source.id, 20, 1000);
    const everyCompaction = rawFile(file)
      .prepare("SELECT count(*) AS n FROM agent_turns WHERE turn_type = 'compaction'")
      .get() as { n: number };
    expect(everyCompaction.n).toBeGreaterThan(compactions.length + forks.length);
    expect(await ledger.doctor()).toEqual([]);
  });
});

describe('doctor on a desynchronized search index', () => {
  it('reports SEARCH_INDEX_MISMATCH when one turn is missing from the index', async () => {
    const { ledger, file } = temp();
    const sqlite = rawFile(file);
    const session = await newSession(ledger);
    const ids = await appendConversation(ledger, session.id, 6, 30);
    await ledger.appendTurn(session.id, userTurn('The axolotl ate the schema.'));
    expect((await ledger.search('axolotl')).hits).toHaveLength(1);
    const victim = (await sessionHistory(ledger, session.id)).at(-1) as Turn;
    const row = turnRow(sqlite, victim.id);
    sqlite
      .prepare("INSERT INTO turns_fts (turns_fts, rowid, search_text) VALUES ('delete', ?, ?)")
      .run(row.rowid, row.search_text);

    const problems = await ledger.doctor();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toEqual({ code: 'SEARCH_INDEX_MISMATCH', message: expect.any(String), ids: [] });
    expect(problems[0]?.message).toMatch(/rebuild/);
    // The drift is real: the turn is no longer found, while the others still are.
    expect((await ledger.search('axolotl')).hits).toEqual([]);
    expect(ids.length).toBe(6);

    // The repair the message names brings it back, and doctor is quiet again.
    sqlite.prepare("INSERT INTO turns_fts (turns_fts) VALUES ('rebuild')").run();
    expect(await ledger.doctor()).toEqual([]);
    expect((await ledger.search('axolotl')).hits.map((hit) => hit.turnId)).toEqual([victim.id]);
  });

  it('reports SEARCH_INDEX_MISMATCH for an index entry with no turn, and for a stale text', async () => {
    const { ledger, file } = temp();
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 4, 30);
    rawFile(file).prepare('INSERT INTO turns_fts (rowid, search_text) VALUES (?, ?)').run(9999, 'phantom words');
    expect((await ledger.doctor()).map((problem) => problem.code)).toEqual(['SEARCH_INDEX_MISMATCH']);

    const other = temp();
    const otherSession = await newSession(other.ledger);
    const [first] = await appendConversation(other.ledger, otherSession.id, 3, 30);
    const otherSqlite = rawFile(other.file);
    const row = turnRow(otherSqlite, first as string);
    // Index the turn under words it does not hold.
    otherSqlite
      .prepare("INSERT INTO turns_fts (turns_fts, rowid, search_text) VALUES ('delete', ?, ?)")
      .run(row.rowid, row.search_text);
    otherSqlite.prepare('INSERT INTO turns_fts (rowid, search_text) VALUES (?, ?)').run(row.rowid, 'stale text');
    expect((await other.ledger.doctor()).map((problem) => problem.code)).toEqual(['SEARCH_INDEX_MISMATCH']);
  });
});

interface Child {
  process: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  onLine(listener: (line: string) => void): void;
}

function startWriter(args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(FIXTURES, 'crash-writer.ts'), ...args], {
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
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener(line);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { process: child, lines, stderr: () => stderr, exited, onLine: (listener) => listeners.push(listener) };
}

/** Runs the writer from turn `start` and kills it with SIGKILL after a random number of lines. */
async function writeUntilKilled(
  file: string,
  sessionId: string,
  start: number,
  batch: number,
): Promise<{ reported: string[]; through: number; about: string }> {
  const killAfter = 12 + Math.floor(Math.random() * 24);
  const delayMs = Math.floor(Math.random() * 15);
  const about = `start=${start} killAfter=${killAfter} delayMs=${delayMs}`;
  const child = startWriter([file, sessionId, String(start), '100000', String(batch)]);
  let scheduled = false;
  child.onLine(() => {
    if (!scheduled && child.lines.length >= killAfter) {
      scheduled = true;
      setTimeout(() => child.process.kill('SIGKILL'), delayMs);
    }
  });
  const ending = await child.exited;
  expect(ending.signal, `${about}; stderr: ${child.stderr()}`).toBe('SIGKILL');
  const reported: string[] = [];
  let through = start;
  for (const line of child.lines) {
    const message = JSON.parse(line) as { through?: number; ids?: string[]; compacted?: string; done?: boolean };
    expect(message.done, about).toBeUndefined();
    if (message.ids) {
      reported.push(...message.ids);
      through = message.through as number;
    }
  }
  return { reported, through, about };
}

describe('a writer killed with SIGKILL between and inside its batches and compactions', () => {
  it('leaves a ledger doctor accepts, with every reported turn searchable and the history whole', async () => {
    const { ledger, file } = temp();
    const session = await ledger.createSession({ settings: SMALL_SETTINGS });
    const batch = 3;
    const reported: string[] = [];
    let next = 0;
    for (let round = 0; round < 2; round += 1) {
      const run = await writeUntilKilled(file, session.id, next, batch);
      const reopened = openTempReopen(file);

      expect(await reopened.doctor(), run.about).toEqual([]);
      const checked = rawFile(file);
      expect(checked.pragma('integrity_check', { simple: true }), run.about).toBe('ok');
      checked.close();

      const history = await sessionHistory(reopened, session.id);
      const normal = history.filter((turn) => turn.turnType === 'normal');
      // Batches are all or nothing: what is stored is whole batches, at least every reported one.
      expect(normal.length % batch, run.about).toBe(0);
      expect(normal.length, run.about).toBeGreaterThanOrEqual(run.through);
      expect(normal.length, run.about).toBeLessThanOrEqual(run.through + batch);
      reported.push(...run.reported);
      expect(
        normal.slice(0, reported.length).map((turn) => turn.id),
        run.about,
      ).toEqual(reported);
      // The chain is whole: depths 0..n-1, each turn the child of the one before it.
      history.forEach((turn, index) => {
        expect(turn.depth, run.about).toBe(index);
        expect(turn.parentTurnId, run.about).toBe(index === 0 ? null : history[index - 1]?.id);
      });
      // Every turn holds the text it was written with, and search finds it by its own word.
      for (const [index, turn] of normal.entries()) {
        expect(turn.turnType === 'normal' && turn.content, run.about).toEqual([{ type: 'text', text: crashTurnText(index) }]);
        const found = await reopened.search(`crashtok${index}`, { view: 'raw', turnType: 'normal' });
        expect(
          found.hits.map((hit) => hit.turnId),
          `${run.about} crashtok${index}`,
        ).toEqual([turn.id]);
      }
      // Every compaction that survived points into this history.
      const ids = new Set(history.map((turn) => turn.id));
      for (const turn of history) if (turn.turnType === 'compaction') expect(ids.has(turn.summarizedThroughTurnId)).toBe(true);
      expect(
        history.some((turn) => turn.turnType === 'compaction'),
        run.about,
      ).toBe(true);
      next = normal.length;
      // A batch written but killed before it was reported is history now: the next round's
      // reported turns come after it (without this, a kill in that window failed the next round).
      reported.splice(0, reported.length, ...normal.map((turn) => turn.id));
      reopened.close();
    }
    expect(reported.length).toBeGreaterThanOrEqual(2 * 2 * batch);
    // The ledger still takes writes where the killed writer left off.
    const after = openTempReopen(file);
    await after.appendTurn(session.id, userTurn('After the crash: okapi.'));
    expect((await after.search('okapi', { view: 'raw' })).hits).toHaveLength(1);
    expect(await after.doctor()).toEqual([]);
    after.close();
  });
});

function openTempReopen(file: string): AgentsLedger {
  const opened = openAgentsLedger(file);
  cleanups.push(() => {
    try {
      opened.close();
    } catch {
      // already closed
    }
  });
  return opened;
}
