// Issue 15's concurrency tests: several runtimes, each a real process with its own pool, writing one
// shared ledger on a real PostgreSQL server (the run's, from vitest's global setup; a fresh database
// per test). Workers are fixtures/ledger-worker.ts. Skipped where no PostgreSQL server runs (see
// packages/store-postgres/test/postgres/global-setup.ts); in CI it always runs.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import {
  type CompactionTurn,
  CompactionWouldNotShrinkError,
  HeadConflictError,
  type NormalTurn,
  NothingToCompactError,
  type Turn,
} from '@agent-ledger/core';
import { openEventsLedger } from '@agent-ledger/events-ledger';
import { freshPostgresDatabase } from '@agent-ledger/store-postgres/testing';
import { createExtractiveSummarizer, type Summarizer } from '@agent-ledger/summarizers';
import { afterEach, describe, expect, inject, it } from 'vitest';

const server = inject('postgresUrl');
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const WORKER = path.join(HERE, 'fixtures', 'ledger-worker.ts');

const children: ChildProcessWithoutNullStreams[] = [];
const ledgers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const ledger of ledgers.splice(0)) await ledger.close().catch(() => {});
});

interface Worker {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  /** Resolves once `count` lines starting with `prefix` were printed. */
  printed(prefix: string, count: number): Promise<void>;
  /** The exit code or the signal; rejects nothing. */
  exited: Promise<number | NodeJS.Signals | null>;
  stderr(): string;
}

function startWorker(args: string[]): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  const waiters: Array<{ prefix: string; count: number; resolve: () => void }> = [];
  const seen = (prefix: string) => lines.filter((line) => line.startsWith(prefix)).length;
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters) if (seen(waiter.prefix) >= waiter.count) waiter.resolve();
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.on('close', (code, signal) => resolve(signal ?? code)),
  );
  return {
    child,
    lines,
    printed: (prefix, count) =>
      seen(prefix) >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ prefix, count, resolve })),
    exited,
    stderr: () => stderr,
  };
}

/** Runs a worker to its end; fails with its stderr unless it exits 0. */
async function runWorker(args: string[]): Promise<string[]> {
  const worker = startWorker(args);
  const outcome = await worker.exited;
  if (outcome !== 0) throw new Error(`worker ${args.join(' ')} ended with ${outcome}:\n${worker.stderr()}`);
  return worker.lines;
}

/** `ack <turnId> <i>` lines: the turn ids a worker was told were written, in its order. */
function acknowledgedTurns(lines: readonly string[]): string[] {
  return lines.filter((line) => line.startsWith('ack ')).map((line) => line.split(' ')[1] as string);
}

async function openLedger(url: string, options: { summarizer?: Summarizer } = {}): Promise<AgentsLedger> {
  const ledger = openAgentsLedger(url, options);
  ledgers.push(ledger);
  return ledger;
}

/** The session's whole line, root first, checked to be one chain: depth 0, 1, 2, … each the child of the one before. */
async function wholeChain(ledger: AgentsLedger, sessionId: string): Promise<Turn[]> {
  const head = (await ledger.getSession(sessionId)).headTurnId;
  const turns: Turn[] = [];
  if (head) for await (const turn of ledger.getFullHistory(head)) turns.push(turn);
  const broken = turns.findIndex(
    (turn, index) => turn.depth !== index || turn.parentTurnId !== (index === 0 ? null : turns[index - 1]?.id),
  );
  expect(broken, `the chain breaks at index ${broken}`).toBe(-1);
  expect(turns.at(-1)?.id ?? null).toBe(head);
  return turns;
}

const textOf = (turn: Turn) => (turn.turnType === 'normal' ? (turn.content[0] as { text: string }).text : '');

/** Each id of `acknowledged` appears exactly once among `ids`. */
function expectEachOnce(ids: readonly string[], acknowledged: readonly string[]): void {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const missing = acknowledged.filter((id) => !counts.has(id));
  const repeated = [...counts].filter(([, seen]) => seen > 1).map(([id]) => id);
  expect({ missing: missing.slice(0, 5), repeated: repeated.slice(0, 5) }).toEqual({ missing: [], repeated: [] });
}

const TITLE = server
  ? 'PostgreSQL: several runtime processes on one ledger'
  : 'PostgreSQL: several runtime processes on one ledger (skipped: no PostgreSQL server here; apt-get install -y postgresql)';

describe.skipIf(!server)(TITLE, () => {
  // Fails if the head compare-and-set were not atomic with the insert (a lost race would still
  // write: two turns at one depth, refused by UNIQUE(session_id, depth) and so a worker error, or a
  // turn off the chain so fewer than 4,000 on it), or if a conflicting append wrote anything
  // before failing (a turn acknowledged twice, or one more on the chain than acknowledged).
  it('4 processes × 1,000 appends to one session, retrying on head conflict: 4,000 turns on one chain, none lost or duplicated', async () => {
    const url = await freshPostgresDatabase(server as string, 'turn_race');
    const ledger = await openLedger(url); // migrates before the workers start
    const session = await ledger.createSession({ label: 'shared' });
    const names = ['w1', 'w2', 'w3', 'w4'];
    const outputs = await Promise.all(names.map((name) => runWorker(['append', url, session.id, name, '1000', '1'])));

    const chain = await wholeChain(ledger, session.id);
    expect(chain).toHaveLength(4_000);
    const acknowledged = outputs.map(acknowledgedTurns);
    for (const ids of acknowledged) expect(ids).toHaveLength(1000);
    expectEachOnce(
      chain.map((turn) => turn.id),
      acknowledged.flat(),
    );
    // Each worker's turns are on the chain in the order it wrote them, each with its own text.
    const byId = new Map(chain.map((turn) => [turn.id, turn]));
    names.forEach((name, worker) => {
      const mine = (acknowledged[worker] ?? []).map((id) => byId.get(id) as Turn);
      expect(mine.map(textOf).map((text) => text.split(' ').slice(0, 2).join(' '))).toEqual(
        mine.map((_, index) => `${name} ${index}`),
      );
      expect(mine.every((turn, index) => index === 0 || turn.depth > (mine[index - 1] as Turn).depth)).toBe(true);
    });
    // They raced: some appends met another writer's head and were retried.
    const conflicts = outputs.reduce((sum, lines) => sum + Number(lines.at(-1)?.split(' ')[1]), 0);
    expect(conflicts).toBeGreaterThan(0);
    // The workers race from their first append (the check above: conflicts happened); 2,500 each
    // took 42-112 s under load for the same check. The limit stays generous.
  }, 300_000);

  // Fails if the per-channel lock were left out (two appenders sealing on one tail: duplicate seqs
  // or a prev-hash that is not the hash before, so verify() is not ok), or if a re-delivery racing
  // the first delivery could store a key twice (events > keys) or answer with another id.
  it('4 processes ingesting into one channel, with re-deliveries: gapless seq, verify ok, every acknowledged event once', async () => {
    const url = await freshPostgresDatabase(server as string, 'ingest_race');
    const events = openEventsLedger(url);
    ledgers.push(events);
    expect((await events.verify()).ok).toBe(true); // migrates before the workers start
    const names = ['i1', 'i2', 'i3', 'i4'];
    const perWorker = 300;
    const outputs = await Promise.all(names.map((name) => runWorker(['ingest', url, 'ops', name, String(perWorker)])));
    const acknowledged = outputs
      .flat()
      .filter((line) => line.startsWith('event '))
      .map(
        (line) => JSON.parse(line.slice('event '.length)) as { externalId: string; id: string; seq: number; duplicate: boolean },
      );

    const stored = [];
    for await (const event of events.range({ channel: 'ops' })) stored.push(event);
    const commonKeys = Math.ceil(perWorker / 5);
    expect(stored).toHaveLength(names.length * perWorker + commonKeys);
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
    expect(new Set(stored.map((event) => event.externalId)).size).toBe(stored.length);
    const verified = await events.verify();
    expect(verified).toMatchObject({ ok: true, checked: stored.length });

    // Every acknowledgement names the one stored event of its key, at its seq; each key was
    // acknowledged as new exactly once, whoever delivered it.
    const byKey = new Map(stored.map((event) => [event.externalId, event]));
    for (const ack of acknowledged) expect(byKey.get(ack.externalId), ack.externalId).toMatchObject({ id: ack.id, seq: ack.seq });
    const fresh = acknowledged.filter((ack) => !ack.duplicate).map((ack) => ack.externalId);
    expect(fresh.sort()).toEqual([...byKey.keys()].sort());
    // Re-deliveries happened: each common key 4 times, each 7th own key twice.
    expect(acknowledged.length - fresh.length).toBeGreaterThanOrEqual(commonKeys * (names.length - 1));
  }, 120_000);

  // Fails if an acknowledged append were not durable (committed after it returned), if a batch
  // were not atomic (a kill leaving part of one: a run of turns shorter than the batch that was
  // never acknowledged), or if the head and the turns were written in separate transactions (a kill
  // between them leaves turns off the chain, a head on a missing turn, or doctor errors).
  it('kill -9 of a writer mid-append: every acknowledged turn is there after restart, the chain intact, doctor clean', async () => {
    const url = await freshPostgresDatabase(server as string, 'kill_writer');
    let ledger = await openLedger(url);
    const session = await ledger.createSession({ label: 'killed' });
    const batch = 4;
    const acknowledged: string[][] = [];
    for (const round of [1, 2, 3]) {
      const worker = startWorker(['append', url, session.id, `k${round}`, '0', String(batch)]);
      // A random point: after some acknowledged batches, then a random few milliseconds more.
      await worker.printed('ack ', batch * (5 + Math.floor(Math.random() * 40)));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 8));
      worker.child.kill('SIGKILL');
      expect(await worker.exited).toBe('SIGKILL');
      acknowledged.push(acknowledgedTurns(worker.lines));
    }
    await ledger.close();
    ledger = await openLedger(url);

    const chain = await wholeChain(ledger, session.id);
    const ids = chain.map((turn) => turn.id);
    expectEachOnce(ids, acknowledged.flat());
    for (const id of acknowledged.flat()) expect((await ledger.getTurn(id)).sessionId).toBe(session.id);
    // What is on the chain beyond the acknowledged: at most one whole batch per killed writer (it
    // committed, the kill came before the line), and each writer's turns are 0, 1, 2, … in order.
    [1, 2, 3].forEach((round, index) => {
      const mine = chain.filter((turn) => textOf(turn).startsWith(`k${round} `));
      const extra = mine.length - (acknowledged[index] ?? []).length;
      expect([0, batch]).toContain(extra);
      expect(mine.map((turn) => Number(textOf(turn).split(' ')[1]))).toEqual(mine.map((_, position) => position));
    });
    const problems = await ledger.doctor();
    expect(problems.filter((problem) => problem.severity !== 'warning')).toEqual([]);
    // The session still takes appends (no lock or half-written head left behind).
    const after = await ledger.appendTurn(session.id, {
      role: 'user',
      content: 'after the crash',
      expectedHeadTurnId: chain.at(-1)?.id,
    });
    expect(after.depth).toBe(chain.length);
  }, 120_000);

  // Fails if a compaction could land on a head it did not plan from without keeping the turns
  // appended meanwhile raw (turns between its summary and its first kept turn: lost from every
  // context), if a failed compaction wrote anything (a compaction turn on the chain that compact()
  // did not return), or if a compaction and an append could both extend one head (a broken chain).
  it('a compaction racing appends from other processes: no turn lost, each compaction lands on a head it planned from or writes nothing', async () => {
    const url = await freshPostgresDatabase(server as string, 'compaction_race');
    const extractive = createExtractiveSummarizer();
    // The extractive summarizer on a long window, made slower still so appends land while it works.
    const slow: Summarizer = {
      name: extractive.name,
      async summarize(input) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        return extractive.summarize(input);
      },
    };
    const ledger = await openLedger(url, { summarizer: slow });
    const session = await ledger.createSession({
      label: 'compacting',
      settings: { contextWindow: 2_000_000, reserveTokens: 1000, keepRecentTokens: 600 },
    });
    const seeded: string[] = [];
    for (let start = 0; start < 1500; start += 250) {
      const turns = await ledger.appendTurns(
        session.id,
        Array.from({ length: 250 }, (_, index) => ({
          role: 'user' as const,
          content: `seed ${start + index}: the release of service ${(start + index) % 37} moved to the next window.`,
        })),
      );
      seeded.push(...turns.map((turn) => turn.id));
    }

    const names = ['c1', 'c2', 'c3'];
    const workers = names.map((name) => startWorker(['append', url, session.id, name, '400', '1']));
    const done = Promise.all(workers.map((worker) => worker.exited));
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    const landed: Array<{ compaction: CompactionTurn; headBefore: Turn }> = [];
    let conflicts = 0;
    while (!finished) {
      const headBefore = await ledger.getTurn((await ledger.getSession(session.id)).headTurnId as string);
      try {
        landed.push({ compaction: await ledger.compact(session.id, { summaryTokens: 300 }), headBefore });
      } catch (error) {
        // A compaction that met another one (or may not move its head) writes nothing; so does one
        // with too little new since the last to shrink the context (the appenders are nearly done).
        if (HeadConflictError.isInstance(error)) conflicts += 1;
        else if (!(CompactionWouldNotShrinkError.isInstance(error) || NothingToCompactError.isInstance(error))) throw error;
      }
    }
    for (const [index, outcome] of (await done).entries())
      expect(outcome, `worker ${names[index]}: ${workers[index]?.stderr()}`).toBe(0);

    const chain = await wholeChain(ledger, session.id);
    const acknowledged = workers.map((worker) => acknowledgedTurns(worker.lines));
    const normals = chain.filter((turn): turn is NormalTurn => turn.turnType === 'normal');
    expect(normals).toHaveLength(seeded.length + 3 * 400);
    expectEachOnce(
      normals.map((turn) => turn.id),
      [...seeded, ...acknowledged.flat()],
    );
    // The compactions on the chain are exactly those compact() returned, in order.
    expect(chain.filter((turn) => turn.turnType === 'compaction').map((turn) => turn.id)).toEqual(
      landed.map(({ compaction }) => compaction.id),
    );
    expect(landed.length).toBeGreaterThan(0);
    const depthOf = new Map(chain.map((turn) => [turn.id, turn.depth]));
    let racedPast = 0;
    for (const { compaction, headBefore } of landed) {
      const through = depthOf.get(compaction.summarizedThroughTurnId) as number;
      const firstKept = compaction.firstKeptTurnId ? (depthOf.get(compaction.firstKeptTurnId) as number) : null;
      // It lands after the head seen before compact() was called (never on an older one).
      expect(compaction.depth).toBeGreaterThan(headBefore.depth);
      expect(through).toBeLessThan(compaction.depth);
      // Every turn between its summary and itself stays raw: the first kept is right after the cut.
      if (compaction.depth > through + 1) expect(firstKept).toBe(through + 1);
      if (compaction.depth > headBefore.depth + 1) racedPast += 1;
    }
    // Appends did land while a compaction was being planned (each then stayed raw after it).
    expect(racedPast + conflicts).toBeGreaterThan(0);
    // And the context after the last compaction has every turn since its cut, summarized or raw.
    const last = landed.at(-1)?.compaction as CompactionTurn;
    const context = await ledger.buildContext(chain.at(-1)?.id as string);
    expect(context.compactionTurnId).toBe(last.id);
    const sinceCut = normals.filter((turn) => turn.depth > (depthOf.get(last.summarizedThroughTurnId) as number));
    expect([...context.includedTurnIds, ...context.droppedTurnIds].sort()).toEqual(sinceCut.map((turn) => turn.id).sort());
  }, 120_000);
});
