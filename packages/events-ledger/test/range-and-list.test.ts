import type { LedgerEvent } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppendEventInput } from '../src/index.ts';
import { collect, openTempEvents, type TempEvents } from './helpers.ts';

let temp: TempEvents;
afterEach(() => temp.cleanup());

const BASE = 1_600_000_000_000;

/** `count` events on channel `main`, each followed by one on `other`; occurredAt = BASE + seq * 10 unless given. */
async function seed(count: number, occurredAt?: (seq: number) => number): Promise<void> {
  const inputs: AppendEventInput[] = [];
  for (let seq = 1; seq <= count; seq += 1) {
    inputs.push({ channel: 'main', externalId: `m${seq}`, payload: { seq }, occurredAt: occurredAt?.(seq) ?? BASE + seq * 10 });
    inputs.push({ channel: 'other', externalId: `o${seq}`, payload: { seq }, occurredAt: BASE });
  }
  await temp.ledger.appendBatch(inputs);
}

const seqs = (events: readonly LedgerEvent[]) => events.map((event) => event.seq);
const upTo = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('list', () => {
  it.each([1, 7, 10, 250, 1000])(
    'paging with nextCursor (limit %i) yields every event exactly once, in seq order',
    async (limit) => {
      temp = openTempEvents();
      await seed(250);
      const seen: LedgerEvent[] = [];
      let afterSeq: number | undefined;
      let pages = 0;
      for (;;) {
        const page = await temp.ledger.list({ channel: 'main', limit, afterSeq });
        pages += 1;
        expect(page.events.length).toBeLessThanOrEqual(limit);
        // No empty page is ever handed out.
        expect(page.events.length).toBeGreaterThan(0);
        seen.push(...page.events);
        if (page.nextCursor === null) break;
        expect(page.nextCursor).toBe(page.events.at(-1)?.seq);
        afterSeq = page.nextCursor;
        expect(pages).toBeLessThan(300);
      }
      expect(pages).toBe(Math.ceil(250 / limit));
      expect(seqs(seen)).toEqual(upTo(1, 250));
      expect(seen.every((event) => event.channel === 'main')).toBe(true);
      expect(seen.map((event) => event.payload)).toEqual(upTo(1, 250).map((seq) => ({ seq })));
    },
  );

  it('defaults to pages of 100 and returns an empty last page only for an empty channel', async () => {
    temp = openTempEvents();
    await seed(150);
    const first = await temp.ledger.list({ channel: 'main' });
    expect(first.events).toHaveLength(100);
    expect(first.nextCursor).toBe(100);
    const second = await temp.ledger.list({ channel: 'main', afterSeq: first.nextCursor ?? 0 });
    expect(seqs(second.events)).toEqual(upTo(101, 150));
    expect(second.nextCursor).toBeNull();
    expect(await temp.ledger.list({ channel: 'nobody' })).toEqual({ events: [], nextCursor: null });
  });

  it('combines afterSeq with seq and time bounds', async () => {
    temp = openTempEvents();
    await seed(50);
    const page = await temp.ledger.list({ channel: 'main', afterSeq: 20, toSeq: 30, since: BASE + 250, limit: 4 });
    expect(seqs(page.events)).toEqual([25, 26, 27, 28]);
    expect(page.nextCursor).toBe(28);
    const rest = await temp.ledger.list({ channel: 'main', afterSeq: 28, toSeq: 30, since: BASE + 250, limit: 4 });
    expect(seqs(rest.events)).toEqual([29, 30]);
    expect(rest.nextCursor).toBeNull();
  });
});

describe('range', () => {
  it('by fromSeq and toSeq, inclusive', async () => {
    temp = openTempEvents();
    await seed(40);
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', fromSeq: 10, toSeq: 20, pageSize: 3 })))).toEqual(
      upTo(10, 20),
    );
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', fromSeq: 38 })))).toEqual([38, 39, 40]);
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', toSeq: 2 })))).toEqual([1, 2]);
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', fromSeq: 41 })))).toEqual([]);
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', fromSeq: 20, toSeq: 19 })))).toEqual([]);
  });

  it('by since and until on occurredAt, inclusive, in seq order even when occurredAt is not', async () => {
    temp = openTempEvents();
    // occurredAt jumps around: events arrive out of order at the source.
    const at = (seq: number) => BASE + ((seq * 37) % 101) * 1000;
    await seed(100, at);
    const since = BASE + 20_000;
    const until = BASE + 60_000;
    const expected = upTo(1, 100).filter((seq) => at(seq) >= since && at(seq) <= until);
    expect(expected.length).toBeGreaterThan(20);
    const got = await collect(temp.ledger.range({ channel: 'main', since, until, pageSize: 7 }));
    expect(seqs(got)).toEqual(expected);
    expect(got.every((event) => event.occurredAt >= since && event.occurredAt <= until)).toBe(true);
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', since: at(5), until: at(5) })))).toEqual([5]);
  });

  it('stops after limit events, across pages, with other bounds applied first', async () => {
    temp = openTempEvents();
    await seed(60);
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', limit: 5 })))).toEqual([1, 2, 3, 4, 5]);
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', fromSeq: 10, limit: 13, pageSize: 4 })))).toEqual(
      upTo(10, 22),
    );
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', since: BASE + 500, limit: 3, pageSize: 2 })))).toEqual([
      50, 51, 52,
    ]);
    expect(seqs(await collect(temp.ledger.range({ channel: 'main', fromSeq: 58, limit: 10 })))).toEqual([58, 59, 60]);
  });

  it('streams 5,000 events in order through small pages', async () => {
    temp = openTempEvents();
    await seed(5000);
    let expectedSeq = 1;
    for await (const event of temp.ledger.range({ channel: 'main', pageSize: 64 })) {
      expect(event.seq).toBe(expectedSeq);
      expect(event.externalId).toBe(`m${expectedSeq}`);
      expectedSeq += 1;
    }
    expect(expectedSeq - 1).toBe(5000);
  }, 30_000);

  it('reads page by page: events appended while the range is being read are still reached', async () => {
    temp = openTempEvents();
    await seed(500);
    let count = 0;
    for await (const event of temp.ledger.range({ channel: 'main', pageSize: 50 })) {
      count += 1;
      if (event.seq === 1) {
        // Not in memory yet: the first page holds seqs 1..50 only.
        await temp.ledger.append({ channel: 'main', externalId: 'late', payload: 'late' });
      }
    }
    expect(count).toBe(501);
  });
});
