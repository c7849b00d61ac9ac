import fs from 'node:fs';
import path from 'node:path';
import { type LedgerEvent, sequentialIds } from '@agent-ledger/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppendEventInput, eventHash, openEventsLedger } from '../src/index.ts';
import {
  countEvents,
  expectIntactChains,
  makeTempDir,
  openTempEvents,
  type RawEventRow,
  rawEvents,
  steppingClock,
  type TempEvents,
  withRawSqlite,
} from './helpers.ts';

let temp: TempEvents | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

/** Channels a (5 events), b (7) and c (3), appended interleaved. */
async function threeChannels(): Promise<{ temp: TempEvents; byChannel: Map<string, LedgerEvent[]> }> {
  temp = openTempEvents();
  const counts: Record<string, number> = { a: 5, b: 7, c: 3 };
  const inputs: AppendEventInput[] = [];
  for (let round = 0; round < 7; round += 1) {
    for (const channel of ['b', 'a', 'c']) {
      if (round < (counts[channel] ?? 0))
        inputs.push({ channel, externalId: `${channel}-${round}`, payload: { round, channel } });
    }
  }
  const byChannel = new Map<string, LedgerEvent[]>();
  for (const { event } of await temp.ledger.appendBatch(inputs)) {
    byChannel.set(event.channel, [...(byChannel.get(event.channel) ?? []), event]);
  }
  return { temp, byChannel };
}

function eventAt(byChannel: Map<string, LedgerEvent[]>, channel: string, seq: number): LedgerEvent {
  const event = byChannel.get(channel)?.[seq - 1];
  if (!event) throw new Error(`no event ${channel}#${seq}`);
  return event;
}

/** What an attacker with the file can do: drop the triggers, then write what they like. */
function tamper(ledger: TempEvents['ledger'], sql: string, ...params: unknown[]): void {
  withRawSqlite(ledger, (sqlite) => {
    sqlite.exec('DROP TRIGGER IF EXISTS events_no_update; DROP TRIGGER IF EXISTS events_no_delete;');
    expect(sqlite.prepare(sql).run(...params).changes).toBeGreaterThan(0);
  });
}

describe('verify on a clean ledger', () => {
  it('passes and counts every event of every channel', async () => {
    const { temp } = await threeChannels();
    expect(await temp.ledger.verify()).toEqual({ ok: true, checked: 15, channels: 3 });
  });

  it('passes on an empty ledger and on a channel that has no events', async () => {
    temp = openTempEvents();
    expect(await temp.ledger.verify()).toEqual({ ok: true, checked: 0, channels: 0 });
    expect(await temp.ledger.verify({ channel: 'nobody' })).toEqual({ ok: true, checked: 0, channels: 1 });
  });

  it('passes across more events than one verify page (1000), over reopened connections', async () => {
    temp = openTempEvents();
    const inputs = Array.from({ length: 2500 }, (_, index) => ({
      channel: index % 5 === 0 ? 'x' : 'y',
      externalId: `${index}`,
      payload: index,
    }));
    await temp.ledger.appendBatch(inputs.slice(0, 1200));
    await temp.ledger.close();
    let next = 0;
    const reopened = temp.reopen({
      generateId: () => {
        next += 1;
        return `e_reopened_${next}`;
      },
      now: steppingClock(),
    });
    await reopened.appendBatch(inputs.slice(1200));
    expect(await reopened.verify()).toEqual({ ok: true, checked: 2500, channels: 2 });
    expect(await reopened.verify({ channel: 'y' })).toEqual({ ok: true, checked: 2000, channels: 1 });
  });
});

describe('verify finds the first broken link', () => {
  it('a changed payload: that channel, seq and event id, with a hash reason', async () => {
    const { temp, byChannel } = await threeChannels();
    const target = eventAt(byChannel, 'b', 4);
    tamper(temp.ledger, `UPDATE events SET payload = '{"channel":"b","round":99}' WHERE id = ?`, target.id);
    const result = await temp.ledger.verify();
    expect(result.ok).toBe(false);
    expect(result.firstBroken).toMatchObject({ channel: 'b', seq: 4, eventId: target.id });
    expect(result.firstBroken?.reason).toMatch(/^hash does not match/);
    // Channels are walked in name order: all of a, then b up to the broken event.
    expect(result.checked).toBe(5 + 3);
  });

  it('a payload rewritten with the same JSON meaning but other bytes is still caught', async () => {
    const { temp, byChannel } = await threeChannels();
    const target = eventAt(byChannel, 'a', 2);
    tamper(temp.ledger, `UPDATE events SET payload = '{"channel": "a", "round": 1}' WHERE id = ?`, target.id);
    expect((await temp.ledger.verify()).firstBroken).toMatchObject({ channel: 'a', seq: 2, eventId: target.id });
  });

  it.each([
    ['author', `'mallory'`],
    ['kind', `'edit'`],
    ['occurred_at', 'occurred_at + 1'],
    ['received_at', 'received_at - 1'],
    ['external_id', `'forged'`],
    ['id', `'e_forged'`],
  ])('a changed %s is caught at that event with a hash reason', async (column, value) => {
    const { temp, byChannel } = await threeChannels();
    const target = eventAt(byChannel, 'c', 2);
    tamper(temp.ledger, `UPDATE events SET ${column} = ${value} WHERE id = ?`, target.id);
    const broken = (await temp.ledger.verify()).firstBroken;
    expect(broken).toMatchObject({ channel: 'c', seq: 2, eventId: column === 'id' ? 'e_forged' : target.id });
    expect(broken?.reason).toMatch(/^hash does not match/);
  });

  it('a changed stored hash is caught at that very event (its hash no longer matches its fields)', async () => {
    const { temp, byChannel } = await threeChannels();
    const target = eventAt(byChannel, 'b', 3);
    tamper(temp.ledger, `UPDATE events SET hash = ? WHERE id = ?`, 'f'.repeat(64), target.id);
    const broken = (await temp.ledger.verify()).firstBroken;
    expect(broken).toMatchObject({ channel: 'b', seq: 3, eventId: target.id });
    expect(broken?.reason).toMatch(/^hash does not match/);
  });

  it('an event rewritten with a recomputed hash breaks the next prevHash: reported at the next seq', async () => {
    const { temp, byChannel } = await threeChannels();
    const target = eventAt(byChannel, 'b', 3);
    const forgedPayload = '{"channel":"b","round":"forged"}';
    const { hash: _old, ...fields } = target;
    const forgedHash = eventHash({ ...fields, payload: forgedPayload });
    tamper(temp.ledger, 'UPDATE events SET payload = ?, hash = ? WHERE id = ?', forgedPayload, forgedHash, target.id);
    const result = await temp.ledger.verify();
    const next = eventAt(byChannel, 'b', 4);
    expect(result.firstBroken).toMatchObject({ channel: 'b', seq: 4, eventId: next.id });
    expect(result.firstBroken?.reason).toMatch(/^prevHash/);
    expect(result.firstBroken?.reason).toContain(forgedHash);
    expect(result.checked).toBe(5 + 3);
  });

  it('a changed prevHash is reported at its own event with a prevHash reason', async () => {
    const { temp, byChannel } = await threeChannels();
    const target = eventAt(byChannel, 'a', 5);
    tamper(temp.ledger, 'UPDATE events SET prev_hash = ? WHERE id = ?', eventAt(byChannel, 'a', 3).hash, target.id);
    const broken = (await temp.ledger.verify()).firstBroken;
    expect(broken).toMatchObject({ channel: 'a', seq: 5, eventId: target.id });
    expect(broken?.reason).toMatch(/^prevHash/);
  });

  it('a deleted event in the middle is reported as a sequence gap at the event after it', async () => {
    const { temp, byChannel } = await threeChannels();
    tamper(temp.ledger, 'DELETE FROM events WHERE id = ?', eventAt(byChannel, 'b', 4).id);
    const result = await temp.ledger.verify();
    expect(result.ok).toBe(false);
    expect(result.firstBroken).toMatchObject({ channel: 'b', seq: 5, eventId: eventAt(byChannel, 'b', 5).id });
    expect(result.firstBroken?.reason).toMatch(/sequence gap: expected seq 4, found 5/);
  });

  it('a deleted first event is reported as a gap at seq 2', async () => {
    const { temp, byChannel } = await threeChannels();
    tamper(temp.ledger, 'DELETE FROM events WHERE id = ?', eventAt(byChannel, 'c', 1).id);
    const broken = (await temp.ledger.verify()).firstBroken;
    expect(broken).toMatchObject({ channel: 'c', seq: 2, eventId: eventAt(byChannel, 'c', 2).id });
    expect(broken?.reason).toMatch(/sequence gap: expected seq 1, found 2/);
  });

  it('verify({ channel }) checks only that channel', async () => {
    const { temp, byChannel } = await threeChannels();
    tamper(temp.ledger, `UPDATE events SET author = 'mallory' WHERE id = ?`, eventAt(byChannel, 'b', 7).id);
    expect(await temp.ledger.verify({ channel: 'a' })).toEqual({ ok: true, checked: 5, channels: 1 });
    expect(await temp.ledger.verify({ channel: 'c' })).toEqual({ ok: true, checked: 3, channels: 1 });
    const onB = await temp.ledger.verify({ channel: 'b' });
    expect(onB).toMatchObject({ ok: false, checked: 6, channels: 1, firstBroken: { channel: 'b', seq: 7 } });
    expect((await temp.ledger.verify()).firstBroken).toMatchObject({ channel: 'b', seq: 7 });
  });
});

describe('property: any sequence of appends leaves intact chains', () => {
  const channelArb = fc.constantFrom('alpha', 'beta', 'gamma', 'delta');
  const inputArb = fc.record(
    {
      channel: channelArb,
      // A small id space so re-deliveries, inside a batch and across batches, are common.
      externalId: fc.integer({ min: 0, max: 12 }).map((n) => `x${n}`),
      payload: fc.jsonValue({ maxDepth: 3 }),
      author: fc.option(fc.constantFrom('ann', 'bob'), { nil: undefined }),
      occurredAt: fc.option(fc.integer({ min: 0, max: 2_000_000_000_000 }), { nil: undefined }),
    },
    { requiredKeys: ['channel', 'externalId', 'payload'] },
  );
  const batchesArb = fc.array(fc.array(inputArb, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 });

  it('verify ok, seqs gapless per channel, one row per distinct (channel, externalId), duplicates flagged', async () => {
    await fc.assert(
      fc.asyncProperty(batchesArb, fc.boolean(), async (batches, oneByOne) => {
        const dir = makeTempDir();
        const ledger = openEventsLedger(path.join(dir, 'events.db'), { generateId: sequentialIds(), now: steppingClock() });
        try {
          const firstSeen = new Map<string, LedgerEvent>();
          for (const batch of batches) {
            const results = oneByOne
              ? await (async () => {
                  const out = [];
                  for (const input of batch) out.push(await ledger.append(input));
                  return out;
                })()
              : await ledger.appendBatch(batch);
            results.forEach((result, index) => {
              const input = batch[index] as AppendEventInput;
              const key = `${input.channel}\u0000${input.externalId}`;
              const first = firstSeen.get(key);
              expect(result.duplicate).toBe(first !== undefined);
              if (first) expect(result.event).toEqual(first);
              else {
                expect(result.event.payload).toEqual(JSON.parse(JSON.stringify(input.payload)));
                firstSeen.set(key, result.event);
              }
            });
          }
          const rows: RawEventRow[] = rawEvents(ledger);
          expect(rows.length).toBe(firstSeen.size);
          expect(countEvents(ledger)).toBe(firstSeen.size);
          expectIntactChains(rows);
          const channels = new Set(rows.map((row) => row.channel));
          expect(await ledger.verify()).toEqual({ ok: true, checked: firstSeen.size, channels: channels.size });
        } finally {
          await ledger.close();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
