// Vectors at append (embedOnAppend): the turns an append wrote get their vectors right after it,
// a batched append in one embedder call, appends made while a call is in flight gathered into the
// next one; the append never waits for the embedder, and an embedder that fails fails no append:
// the failure is reported with the turns it left, which embedMissing then stores.

import { type Embedder, InvalidInputError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmbeddingFailure } from '../src/retrieval/append-embeddings.ts';
import { storeOf } from '../src/testing.ts';
import { assistantTurn, openTempLedger, type TempLedger, userTurn } from './builders.ts';

const MODEL = 'test-letters-v1';

/** A deterministic embedder (letter counts) that records each call and can be held or made to fail. */
function letterEmbedder() {
  const calls: string[][] = [];
  let gate: Promise<void> | null = null;
  let failing = false;
  const embedder: Embedder = {
    model: MODEL,
    async embed(texts) {
      calls.push([...texts]);
      if (gate) await gate;
      if (failing) throw new Error('embedding service went away');
      return texts.map((text) => [text.length, (text.match(/a/g) ?? []).length, 1]);
    },
  };
  return {
    embedder,
    calls,
    hold: () => {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = () => {
          gate = null;
          resolve();
        };
      });
      return release;
    },
    fail: (value: boolean) => {
      failing = value;
    },
  };
}

let temp: TempLedger | undefined;
afterEach(async () => {
  await temp?.ledger.close();
  temp?.cleanup();
  temp = undefined;
});

async function storedVectors(turnIds: readonly string[]): Promise<Map<string, number[]>> {
  const store = storeOf((temp as TempLedger).ledger);
  const sessions = await store.listSessions({ limit: 100, offset: 0 });
  const vectors = new Map<string, number[]>();
  for (const session of sessions) {
    const line = [{ sessionId: session.id, fromDepth: 0, toDepth: 1_000 }];
    for (const row of await store.turnEmbeddings(MODEL, line)) vectors.set(row.turnId, [...row.vector]);
  }
  return new Map([...vectors].filter(([turnId]) => turnIds.includes(turnId)));
}

describe('vectors at append', () => {
  it('stores each appended turn’s vector, a batched append in one embedder call, nothing left for embedMissing', async () => {
    const fake = letterEmbedder();
    temp = openTempLedger({ embedder: fake.embedder, embedOnAppend: true });
    const { ledger } = temp;
    const session = await ledger.createSession();
    const batch = await ledger.appendTurns(session.id, [userTurn('banana'), assistantTurn('kiwi'), userTurn('papaya')]);
    await ledger.flushEmbeddings();
    expect(fake.calls).toEqual([['banana', 'kiwi', 'papaya']]);
    const single = await ledger.appendTurn(session.id, assistantTurn('a date'));
    await ledger.flushEmbeddings();
    expect(fake.calls).toHaveLength(2);
    const ids = [...batch, single].map((turn) => turn.id);
    expect(await storedVectors(ids)).toEqual(
      new Map([
        [ids[0], [6, 3, 1]],
        [ids[1], [4, 0, 1]],
        [ids[2], [6, 3, 1]],
        [ids[3], [6, 2, 1]],
      ]),
    );
    expect((await ledger.embedMissing()).embedded).toBe(0);
    expect((await ledger.searchByMeaning('banana')).unembedded).toBe(0);
  });

  it('an append does not wait for the embedder; appends during a call are embedded together in the next', async () => {
    const fake = letterEmbedder();
    temp = openTempLedger({ embedder: fake.embedder, embedOnAppend: true });
    const { ledger } = temp;
    const session = await ledger.createSession();
    const release = fake.hold();
    const first = await ledger.appendTurn(session.id, userTurn('first'));
    // Returned while the embedder is held: the vector is not there yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.calls).toEqual([['first']]);
    expect(await storedVectors([first.id])).toEqual(new Map());
    const later = [];
    for (const text of ['second', 'third', 'fourth']) later.push(await ledger.appendTurn(session.id, userTurn(text)));
    release();
    await ledger.flushEmbeddings();
    expect(fake.calls).toEqual([['first'], ['second', 'third', 'fourth']]);
    expect((await storedVectors([first, ...later].map((turn) => turn.id))).size).toBe(4);
  });

  it('a context with retrieval right after an append waits for its vectors instead of embedding the turns again', async () => {
    const fake = letterEmbedder();
    temp = openTempLedger({ embedder: fake.embedder, embedOnAppend: true });
    const { ledger } = temp;
    const session = await ledger.createSession();
    const release = fake.hold();
    const turns = await ledger.appendTurns(session.id, [userTurn('a banana'), assistantTurn('a kiwi')]);
    const context = ledger.buildContext(turns[1]?.id as string, { query: 'banana', retrieval: true, budgetTokens: 1_000 });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await context;
    expect(fake.calls).toEqual([['a banana', 'a kiwi'], ['banana']]);
  });

  it('an embedder failure fails no append: it is reported with the turns left, and embedMissing stores them', async () => {
    const fake = letterEmbedder();
    const failures: EmbeddingFailure[] = [];
    temp = openTempLedger({
      embedder: fake.embedder,
      embedOnAppend: true,
      onEmbeddingFailure: (failure) => failures.push(failure),
    });
    const { ledger } = temp;
    const session = await ledger.createSession();
    fake.fail(true);
    const turns = await ledger.appendTurns(session.id, [userTurn('lost one'), assistantTurn('lost two')]);
    await ledger.flushEmbeddings();
    expect(turns).toHaveLength(2);
    expect(failures.map((failure) => [String(failure.error), failure.turnIds])).toEqual([
      ['Error: embedding service went away', turns.map((turn) => turn.id)],
    ]);
    expect(await storedVectors(turns.map((turn) => turn.id))).toEqual(new Map());
    fake.fail(false);
    const next = await ledger.appendTurn(session.id, userTurn('kept'));
    await ledger.flushEmbeddings();
    expect([...(await storedVectors([next.id])).keys()]).toEqual([next.id]);
    expect((await ledger.embedMissing()).embedded).toBe(2);
    expect(failures).toHaveLength(1);
  });

  it('without embedOnAppend nothing is embedded at append; embedOnAppend without an embedder is refused', async () => {
    const fake = letterEmbedder();
    temp = openTempLedger({ embedder: fake.embedder });
    const session = await temp.ledger.createSession();
    await temp.ledger.appendTurn(session.id, userTurn('quiet'));
    await temp.ledger.flushEmbeddings();
    expect(fake.calls).toEqual([]);
    expect(() => openTempLedger({ embedOnAppend: true })).toThrow(InvalidInputError);
  });

  it('closing the ledger waits for the embeddings under way', async () => {
    const fake = letterEmbedder();
    temp = openTempLedger({ embedder: fake.embedder, embedOnAppend: true });
    const session = await temp.ledger.createSession();
    const release = fake.hold();
    const turn = await temp.ledger.appendTurn(session.id, userTurn('last words'));
    const closing = temp.ledger.close();
    release();
    await closing;
    const reopened = temp.reopen({ embedder: fake.embedder });
    expect((await reopened.embedMissing()).embedded).toBe(0);
    expect(fake.calls).toEqual([['last words']]);
    expect(turn.id).toBeTruthy();
  });
});
