// The event part of the store contract, continued: a batch of events is all or nothing, whatever
// fails in it (its seal, an insert, a record that does not continue its channel, the transaction
// around it), and leaves the channels as they were.

import { describe, expect, it } from 'vitest';
import type { AppendEvents, EventRecord, LedgerStore } from '../index.ts';
import { batchOf, type Draft, expectChain, recordFor, wholeChannel } from './event-drafts.ts';
import type { OpenStore } from './open-per-case.ts';

/** A store holding one event on channel `a`, and that channel as it reads before the case. */
async function seeded(open: OpenStore) {
  const store = await open();
  await store.appendEvents(batchOf([{ channel: 'a', externalId: '1' }]));
  return { store, before: await wholeChannel(store, 'a') };
}

/** Channel `a` as it was before the batch, and nothing of the batch anywhere else. */
async function expectUnchanged(store: LedgerStore, before: EventRecord[]) {
  expect(await wholeChannel(store, 'a')).toEqual(before);
  expect(await wholeChannel(store, 'b')).toEqual([]);
  expect(await store.eventChannels()).toEqual(['a']);
}

/** The batch every case tries to append: channel a continues at seq 2, channel b starts. */
const drafts: Draft[] = [
  { channel: 'a', externalId: '2' },
  { channel: 'b', externalId: '1' },
  { channel: 'a', externalId: '3' },
];

export function batchAtomicityCases(open: OpenStore): void {
  describe('a batch is all or nothing', () => {
    failingBatchCases(open);
    refusedBatchCases(open);
  });
}

/** Something fails while the batch is written: its seal, or an insert. */
function failingBatchCases(open: OpenStore): void {
  it('a seal that throws on the last event leaves none of the batch', async () => {
    const { store, before } = await seeded(open);
    const failing: AppendEvents = {
      events: drafts,
      seal: (index, tail) => {
        if (index === 2) throw new Error('cannot seal this one');
        return recordFor(drafts[index] as Draft, tail);
      },
    };
    await expect(store.appendEvents(failing)).rejects.toThrow('cannot seal this one');
    await expectUnchanged(store, before);
  });

  it('a failing insert (an id already stored) leaves none of the batch', async () => {
    const { store, before } = await seeded(open);
    const takenId = before[0]?.id ?? '';
    const colliding: AppendEvents = {
      events: drafts,
      seal: (index, tail) => {
        const record = recordFor(drafts[index] as Draft, tail);
        return index === 2 ? { ...record, id: takenId } : record;
      },
    };
    await expect(store.appendEvents(colliding)).rejects.toThrow();
    await expectUnchanged(store, before);
    expect(await store.getEvent(takenId)).toEqual(before[0]);
  });
}

/** The batch is refused (a forged record) or undone (its transaction fails). */
function refusedBatchCases(open: OpenStore): void {
  it('a record that does not continue the tail, or carries another key, is refused', async () => {
    const { store, before } = await seeded(open);
    const forged = (change: Partial<EventRecord>): AppendEvents => ({
      events: drafts,
      seal: (index, tail) => ({ ...recordFor(drafts[index] as Draft, tail), ...(index === 2 ? change : {}) }),
    });
    // The last event of the batch (channel a, which continues at seq 3): forged after two good ones.
    for (const change of [
      { seq: 2 },
      { seq: 4 },
      { prevHash: 'not-the-tail' },
      { prevHash: null },
      { channel: 'b' },
      { externalId: 'other' },
    ] as Partial<EventRecord>[]) {
      await expect(store.appendEvents(forged(change)), JSON.stringify(change)).rejects.toThrow();
      await expectUnchanged(store, before);
    }
  });

  it('inside a transaction that fails, the append is undone with it', async () => {
    const { store, before } = await seeded(open);
    await expect(
      store.transaction(async (tx) => {
        const appended = await tx.appendEvents(batchOf(drafts));
        expect(appended.map((each) => each.record.seq)).toEqual([2, 1, 3]);
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    await expectUnchanged(store, before);
    // Committed, it is there.
    await store.transaction(async (tx) => {
      await tx.appendEvents(batchOf(drafts));
    });
    expectChain(await wholeChannel(store, 'a'));
    expect(await wholeChannel(store, 'a')).toHaveLength(3);
  });
}
