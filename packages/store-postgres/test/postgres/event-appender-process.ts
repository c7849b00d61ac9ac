// One appender process of postgres-events-concurrency.test.ts: opens its own store (its own pool)
// on the database given, appends its batches with a few in flight at once, and prints how many
// times its seal ran. Run with `node --import tsx event-appender-process.ts URL NAME BATCHES`.

import type { EventKey, EventRecord, EventTail } from '@agent-ledger/store';
import { openPostgresStore } from '../../src/postgres-store.ts';

const [url, name, batchesText] = process.argv.slice(2) as [string, string, string];
const store = openPostgresStore(url, { poolSize: 4 });
let seals = 0;

function sealed({ channel, externalId }: EventKey, tail: EventTail | null): EventRecord {
  seals += 1;
  const seq = (tail?.seq ?? 0) + 1;
  const id = `${name}:${channel}:${externalId}`;
  return {
    id,
    channel,
    externalId,
    author: name,
    kind: 'message',
    payload: '{}',
    occurredAt: 1_000,
    receivedAt: 2_000,
    seq,
    prevHash: tail?.hash ?? null,
    hash: `hash(${id}<-${tail?.hash ?? ''})`,
    searchText: `${name} ${externalId}`,
  };
}

const inFlight: Array<Promise<unknown>> = [];
for (let batch = 0; batch < Number(batchesText); batch += 1) {
  // Its own key on the busy channel, and a key every process delivers (on one of two channels).
  const keys = [
    { channel: 'busy', externalId: `${name}.${batch}` },
    { channel: batch % 2 === 0 ? 'busy' : 'quiet', externalId: `shared.${batch}` },
  ];
  inFlight.push(store.appendEvents({ events: keys, seal: (index, tail) => sealed(keys[index] as EventKey, tail) }));
  if (inFlight.length >= 6) await Promise.all(inFlight.splice(0));
}
await Promise.all(inFlight);
await store.close();
process.stdout.write(`${JSON.stringify({ seals })}\n`);
