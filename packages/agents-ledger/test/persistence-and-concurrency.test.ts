import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { HeadConflictError } from '@agent-ledger/core';
import { newLeaseHolder, takeLease } from '@agent-ledger/store';
import {
  createExtractiveSummarizer,
  type SummarizeInput,
  type SummarizeResult,
  type Summarizer,
} from '@agent-ledger/summarizers';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentsLedger } from '../src/index.ts';
import { storeOf } from '../src/testing.ts';
import {
  appendConversation,
  assistantTurn,
  countRows,
  newSession,
  openTempLedger,
  prefixedIds,
  sessionHistory,
  type TempLedger,
  userTurn,
} from './builders.ts';
import { countingSummarizer } from './topic-builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

async function everything(ledger: AgentsLedger, sessionIds: readonly string[]) {
  const out: unknown[] = [];
  for (const sessionId of sessionIds) {
    const session = await ledger.getSession(sessionId);
    const history = await sessionHistory(ledger, sessionId);
    const contexts = session.headTurnId
      ? [
          await ledger.buildContext(session.headTurnId, { sessionId }),
          await ledger.buildContext(session.headTurnId, { sessionId, budgetTokens: 300, systemPrompt: 'Be brief.' }),
        ]
      : [];
    out.push({ session, history, contexts, usage: await ledger.contextUsage(sessionId), tree: await ledger.tree(sessionId) });
  }
  return out;
}

/** A summarizer that waits for `release()` before summarizing, so other writers can run meanwhile. */
function gatedSummarizer(): Summarizer & { started: Promise<void>; release(): void } {
  const inner = createExtractiveSummarizer();
  let release!: () => void;
  let started!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve;
  });
  return {
    name: 'gated',
    started: startedPromise,
    release,
    async summarize(input: SummarizeInput): Promise<SummarizeResult> {
      started();
      await gate;
      return inner.summarize(input);
    },
  };
}

describe('persistence', () => {
  it('reopening the file gives back the same sessions, history and contexts, and appends continue', async () => {
    temp = openTempLedger();
    const first = temp.ledger;
    const session = await newSession(first);
    await appendConversation(first, session.id, 30, 40);
    const compaction = await first.compact(session.id);
    await appendConversation(first, session.id, 5, 20, 100);
    const fork = await first.forkFrom(compaction.id, { label: 'after-compaction' });
    await appendConversation(first, fork.session.id, 3, 20, 200);
    const sessionIds = [session.id, fork.session.id];
    const before = await everything(first, sessionIds);
    first.close();

    const reopened = temp.reopen({ generateId: prefixedIds('r'), now: () => 1 });
    expect(await everything(reopened, sessionIds)).toEqual(before);
    expect((await reopened.listSessions()).map((listed) => listed.id).sort()).toEqual([...sessionIds].sort());

    const head = (await reopened.getSession(session.id)).headTurnId;
    const next = await reopened.appendTurn(session.id, { ...userTurn('after reopening'), expectedHeadTurnId: head });
    expect(next.parentTurnId).toBe(head);
    expect((await reopened.buildContext(next.id)).compactionTurnId).toBe(compaction.id);
  });
});

describe('two ledgers on one file', () => {
  it('a stale expectedHeadTurnId from the second writer gets HeadConflictError and nothing is lost', async () => {
    temp = openTempLedger();
    const a = temp.ledger;
    const b = temp.reopen({ generateId: prefixedIds('b') });
    const session = await newSession(a);
    await appendConversation(a, session.id, 3);
    const seenByB = (await b.getSession(session.id)).headTurnId;
    const seenByA = (await a.getSession(session.id)).headTurnId;
    expect(seenByB).toBe(seenByA);

    const fromA = await a.appendTurn(session.id, { ...userTurn('A was first'), expectedHeadTurnId: seenByA });
    const error = await b.appendTurn(session.id, { ...userTurn('B was late'), expectedHeadTurnId: seenByB }).catch((e) => e);
    expect(error).toBeInstanceOf(HeadConflictError);
    expect(error).toMatchObject({ expected: seenByB, actual: fromA.id });

    // B reloads the head and retries.
    const reloaded = (await b.getSession(session.id)).headTurnId;
    const fromB = await b.appendTurn(session.id, { ...assistantTurn('B after reload'), expectedHeadTurnId: reloaded });
    expect(fromB.parentTurnId).toBe(fromA.id);
    for (const ledger of [a, b]) {
      const history = await sessionHistory(ledger, session.id);
      expect(history.map((turn) => turn.depth)).toEqual([0, 1, 2, 3, 4]);
      expect(history.slice(3).map((turn) => turn.id)).toEqual([fromA.id, fromB.id]);
    }
    expect(countRows(a, 'agent_turns')).toBe(5);
  });

  it('interleaved appends without expectations form one line, with every turn kept', async () => {
    temp = openTempLedger();
    const a = temp.ledger;
    const b = temp.reopen({ generateId: prefixedIds('b') });
    const session = await newSession(a);
    const written: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const writer = index % 2 === 0 ? a : b;
        const turn = await writer.appendTurn(session.id, userTurn(`turn ${index}`));
        written.push(turn.id);
      }),
    );
    const history = await sessionHistory(b, session.id);
    expect(history).toHaveLength(20);
    expect(new Set(history.map((turn) => turn.id))).toEqual(new Set(written));
    history.forEach((turn, depth) => {
      expect(turn.depth).toBe(depth);
      expect(turn.parentTurnId).toBe(depth === 0 ? null : history[depth - 1]?.id);
    });
  });

  it('turns appended by another writer while a compaction summarizes stay raw after it', async () => {
    const summarizer = gatedSummarizer();
    temp = openTempLedger({ summarizer });
    const a = temp.ledger;
    const b = temp.reopen({ generateId: prefixedIds('b') });
    const session = await newSession(a);
    const ids = await appendConversation(a, session.id, 30, 40);
    const compacting = a.compact(session.id);
    await summarizer.started;
    const late = await b.appendTurn(session.id, userTurn('arrived during the summary'));
    summarizer.release();
    const compaction = await compacting;

    expect(compaction.parentTurnId).toBe(late.id);
    expect(compaction.summarizedThroughTurnId).not.toBe(late.id);
    const context = await b.buildContext(compaction.id);
    expect(context.includedTurnIds.at(-1)).toBe(late.id);
    expect(context.includedTurnIds[0]).toBe(compaction.firstKeptTurnId);
    // tokensBefore is the context the compaction replaced: every raw turn, the late one included.
    expect(compaction.tokensBefore).toBe(await rawTokens(a, [...ids, late.id]));
    expect((await b.contextUsage(session.id)).contextTokens).toBe(compaction.tokensAfter);
  });

  it("one compactor per session: a second ledger waits for the first one's compaction and takes it, calling no summarizer", async () => {
    const summarizer = gatedSummarizer();
    temp = openTempLedger({ summarizer });
    const a = temp.ledger;
    const other = countingSummarizer();
    const b = temp.reopen({ generateId: prefixedIds('b'), summarizer: other });
    const session = await newSession(a);
    await appendConversation(a, session.id, 30, 40);
    const slow = a.compact(session.id);
    await summarizer.started;
    let waited = false;
    const waiting = b.compact(session.id).then((compaction) => {
      waited = true;
      return compaction;
    });
    const rows = countRows(a, 'agent_turns');
    await new Promise((resolve) => setTimeout(resolve, 400));
    // b holds off while a summarizes: nothing written, b's summarizer not asked.
    expect(waited).toBe(false);
    expect(countRows(a, 'agent_turns')).toBe(rows);
    summarizer.release();
    const [first, second] = await Promise.all([slow, waiting]);
    expect(second.id).toBe(first.id);
    expect(other.calls).toHaveLength(0);
    expect(countRows(a, 'agent_turns')).toBe(rows + 1);
    expect((await a.getSession(session.id)).headTurnId).toBe(first.id);
  });

  it("a crashed compactor's lease expires: the next compaction waits for it, then compacts", async () => {
    temp = openTempLedger();
    const a = temp.ledger;
    const session = await newSession(a);
    await appendConversation(a, session.id, 30, 40);
    // A holder that died mid-compaction: its lease, 600 ms from now, is never renewed or released.
    const held = await storeOf(a).acquireLease({
      name: `compact:${session.id}`,
      holder: 'crashed',
      now: Date.now(),
      expiresAt: Date.now() + 600,
    });
    expect(held).toBe(true);
    const started = Date.now();
    const compaction = await a.compact(session.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect((await a.getSession(session.id)).headTurnId).toBe(compaction.id);
    expect(await a.doctor()).toEqual([]);
  });
});

describe('a compactor killed on this machine', () => {
  it('leaves a lease the next compaction takes over at once, while a live holder is waited for', async () => {
    temp = openTempLedger();
    const a = temp.ledger;
    const session = await newSession(a);
    await appendConversation(a, session.id, 30, 40);
    const name = `compact:${session.id}`;
    // A real process that held the lease and was killed: its pid is gone, its lease has ten minutes
    // left. Without the takeover this compaction waits those ten minutes (and the test times out).
    const dead = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    await once(dead, 'spawn');
    dead.kill('SIGKILL');
    await once(dead, 'exit');
    const deadHolder = `${hostname()}/${dead.pid}/killed-mid-compaction`;
    const minutes = { now: Date.now(), expiresAt: Date.now() + 600_000 };
    expect(await storeOf(a).acquireLease({ name, holder: deadHolder, ...minutes })).toBe(true);
    const compaction = await a.compact(session.id);
    expect((await a.getSession(session.id)).headTurnId).toBe(compaction.id);
    expect(await storeOf(a).leaseHolder(name)).toBeNull();

    // A holder whose process is alive (or on another machine) is not taken over.
    const alive = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    await once(alive, 'spawn');
    try {
      for (const holder of [`${hostname()}/${alive.pid}/working`, `another-host/${dead.pid}/working`]) {
        expect(await storeOf(a).acquireLease({ name, holder, ...minutes })).toBe(true);
        expect(await takeLease(storeOf(a), { name, holder: newLeaseHolder(), ...minutes })).toBe(false);
        expect(await storeOf(a).leaseHolder(name)).toBe(holder);
        await storeOf(a).releaseLease({ name, holder });
      }
    } finally {
      alive.kill('SIGKILL');
    }
  });
});

async function rawTokens(ledger: AgentsLedger, ids: readonly string[]): Promise<number> {
  let total = 0;
  for (const id of ids) total += (await ledger.getTurn(id)).tokenCount;
  return total;
}
