// AgentsLedger.embedMissing: the backfill behind `nexus embed`. Every normal turn of every session
// is embedded once (a fork's inherited turns belong to its source), one session's line with
// `sessionId`, progress counts up to the total, and a run that fails midway keeps the batches it
// stored, so the next run embeds only the rest.

import { type Embedder, InvalidInputError } from '@agent-ledger/core';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmbedProgress } from '../src/index.ts';
import { assistantTurn, openTempLedger, type TempLedger, userTurn } from './builders.ts';

/** An embedder that records what it was asked and can be told to fail on its nth call. */
function recordingEmbedder(options: { failOnCall?: number } = {}): Embedder & { texts: string[]; calls: number } {
  const state = { texts: [] as string[], calls: 0 };
  return {
    model: 'test-lengths-v1',
    get texts() {
      return state.texts;
    },
    get calls() {
      return state.calls;
    },
    async embed(batch) {
      state.calls += 1;
      if (state.calls === options.failOnCall) throw new Error('embedding service went away');
      state.texts.push(...batch);
      return batch.map((text) => [text.length, 1, 0]);
    },
  };
}

function storedVectors(file: string): number {
  const raw = openRawSqlite(file, { readonly: true });
  try {
    return (raw.prepare("SELECT count(*) AS n FROM turn_embeddings WHERE model = 'test-lengths-v1'").get() as { n: number }).n;
  } finally {
    raw.close();
  }
}

let temp: TempLedger;
afterEach(() => temp?.cleanup());

/** Two sessions, a fork with turns of its own and a fork with none: 5 + 3 + 2 normal turns. */
async function ledgerWithForks(embedder: Embedder) {
  temp = openTempLedger({ embedder });
  const { ledger } = temp;
  const first = await ledger.createSession();
  const firstTurns = await ledger.appendTurns(first.id, [
    userTurn('one'),
    assistantTurn('two'),
    userTurn('three'),
    assistantTurn('four'),
    userTurn('five'),
  ]);
  const second = await ledger.createSession();
  await ledger.appendTurns(second.id, [userTurn('alpha'), assistantTurn('beta'), userTurn('gamma')]);
  const fork = await ledger.forkFrom(firstTurns[2]?.id as string);
  await ledger.appendTurns(fork.session.id, [userTurn('forked a'), assistantTurn('forked b')]);
  await ledger.forkFrom(firstTurns[4]?.id as string);
  return { ledger, first, second, fork: fork.session };
}

describe('embedMissing', () => {
  it('embeds every normal turn once, across sessions and forks, with progress up to the total', async () => {
    const embedder = recordingEmbedder();
    const { ledger } = await ledgerWithForks(embedder);
    const progress: EmbedProgress[] = [];
    const result = await ledger.embedMissing({ batchSize: 2, onProgress: (step) => progress.push(step) });
    expect(result).toEqual({ model: 'test-lengths-v1', embedded: 10, sessions: 4, dimensions: 3 });
    expect([...embedder.texts].sort()).toEqual(
      ['one', 'two', 'three', 'four', 'five', 'alpha', 'beta', 'gamma', 'forked a', 'forked b'].sort(),
    );
    expect(storedVectors(temp.file)).toBe(10);
    expect(progress[0]).toEqual({ embedded: 0, total: 10 });
    expect(progress.at(-1)).toEqual({ embedded: 10, total: 10 });
    expect(progress.map((step) => step.embedded)).toEqual([...progress.map((step) => step.embedded)].sort((a, b) => a - b));

    // Nothing left: a second run asks the embedder nothing; a new turn is all the next one embeds.
    const calls = embedder.calls;
    expect(await ledger.embedMissing()).toEqual({ model: 'test-lengths-v1', embedded: 0, sessions: 4, dimensions: null });
    expect(embedder.calls).toBe(calls);
    const [newest] = await ledger.listSessions({ limit: 1 });
    await ledger.appendTurn(newest?.id as string, userTurn('six'));
    expect((await ledger.embedMissing()).embedded).toBe(1);
    expect(embedder.texts.at(-1)).toBe('six');
  });

  it('with sessionId embeds that session’s line: a fork’s own turns and those before its fork point', async () => {
    const embedder = recordingEmbedder();
    const { ledger, fork, second } = await ledgerWithForks(embedder);
    const result = await ledger.embedMissing({ sessionId: fork.id });
    expect(result).toMatchObject({ embedded: 5, sessions: 1 });
    expect(embedder.texts).toEqual(['one', 'two', 'three', 'forked a', 'forked b']);
    // The source session's turns it shares are not embedded twice.
    embedder.texts.length = 0;
    await ledger.embedMissing();
    expect([...embedder.texts].sort()).toEqual(['alpha', 'beta', 'five', 'four', 'gamma']);
    await expect(ledger.embedMissing({ sessionId: 'no-such-session' })).rejects.toThrow(/No session with id "no-such-session"/);
    expect((await ledger.embedMissing({ sessionId: second.id })).embedded).toBe(0);
  });

  it('keeps the batches stored before a failure, and the next run embeds only the rest', async () => {
    const failing = recordingEmbedder({ failOnCall: 3 });
    await ledgerWithForks(failing);
    const progress: EmbedProgress[] = [];
    await expect(temp.ledger.embedMissing({ batchSize: 3, onProgress: (step) => progress.push(step) })).rejects.toThrow(
      'embedding service went away',
    );
    // Batches are per session (newest first: the fork's 2 turns, then the second session's 3): the
    // third call, the first batch of the oldest session, failed.
    expect(progress.at(-1)).toEqual({ embedded: 5, total: 10 });
    expect(storedVectors(temp.file)).toBe(5);

    const resumed = recordingEmbedder();
    const reopened = temp.reopen({ embedder: resumed });
    expect((await reopened.embedMissing({ batchSize: 3 })).embedded).toBe(5);
    expect(resumed.texts.some((text) => failing.texts.includes(text))).toBe(false);
    expect(storedVectors(temp.file)).toBe(10);
  });

  it('needs an Embedder', async () => {
    temp = openTempLedger();
    const error = await temp.ledger.embedMissing().catch((caught: unknown) => caught);
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(String(error)).toContain('createAgentsLedger({ embedder })');
  });
});
